#include "search/selection.hpp"

#include <algorithm>

namespace gi {

namespace {

// Indexes of the individuals `take` admits, by error, then median time; ties keep population order.
template <typename Take>
std::vector<std::size_t> ranked(const std::vector<Scored>& population, Take take) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < population.size(); ++i)
        if (take(population[i])) order.push_back(i);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        const EvalResult& x = population[a].result;
        const EvalResult& y = population[b].result;
        if (x.error != y.error) return x.error < y.error;
        return x.time.median_ms < y.time.median_ms;
    });
    return order;
}

}  // namespace

std::vector<std::size_t> truncation_select(const std::vector<Scored>& population, std::size_t max_parents) {
    std::vector<std::size_t> accepted = ranked(population, [](const Scored& s) { return s.accepted; });
    if (accepted.size() > max_parents) accepted.resize(max_parents);
    return accepted;
}

std::vector<std::optional<std::size_t>> parent_slots(const std::vector<Scored>& population, std::size_t max_parents) {
    const std::vector<std::size_t> order =
        ranked(population, [](const Scored& s) { return s.accepted || s.failed_gate; });
    std::vector<std::optional<std::size_t>> slots;
    std::size_t replacement = std::min(max_parents, order.size());
    for (std::size_t k = 0; k < order.size() && k < max_parents; ++k) {
        if (population[order[k]].accepted) {
            slots.emplace_back(order[k]);
            continue;
        }
        while (replacement < order.size() && !population[order[replacement]].accepted) ++replacement;
        if (replacement < order.size())
            slots.emplace_back(order[replacement++]);
        else
            slots.emplace_back(std::nullopt);
    }
    return slots;
}

}  // namespace gi
