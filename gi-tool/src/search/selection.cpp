#include "search/selection.hpp"

#include <algorithm>

namespace gi {

std::vector<std::size_t> truncation_select(const std::vector<Scored>& population, std::size_t max_parents) {
    std::vector<std::size_t> accepted;
    for (std::size_t i = 0; i < population.size(); ++i)
        if (population[i].accepted) accepted.push_back(i);
    std::stable_sort(accepted.begin(), accepted.end(), [&](std::size_t a, std::size_t b) {
        const EvalResult& x = population[a].result;
        const EvalResult& y = population[b].result;
        if (x.error != y.error) return x.error < y.error;
        return x.time.median_ms < y.time.median_ms;
    });
    if (accepted.size() > max_parents) accepted.resize(max_parents);
    return accepted;
}

}  // namespace gi
