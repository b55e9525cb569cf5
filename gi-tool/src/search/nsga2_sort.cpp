#include "search/nsga2_sort.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "util/error.hpp"

namespace gi {

Objectives make_objectives(bool ran, double relative_time, double error, double max_error) {
    Objectives o;
    if (!ran || !std::isfinite(relative_time) || !(error >= 0)) return o;  // worst on every count
    o.time = relative_time;
    o.error = error;
    o.violation = error > max_error ? error - max_error : 0;
    return o;
}

bool dominates(const Objectives& a, const Objectives& b) {
    if (a.violation != b.violation) return a.violation < b.violation;
    if (!a.feasible()) return false;  // equally far beyond the budget: neither is better
    return a.time <= b.time && a.error <= b.error && (a.time < b.time || a.error < b.error);
}

std::vector<std::vector<std::size_t>> non_dominated_sort(const std::vector<Objectives>& points) {
    const std::size_t n = points.size();
    std::vector<std::vector<std::size_t>> dominated(n);  // whom i dominates
    std::vector<int> dominators(n, 0);
    std::vector<std::vector<std::size_t>> fronts(1);
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            if (i == j) continue;
            if (dominates(points[i], points[j])) dominated[i].push_back(j);
            else if (dominates(points[j], points[i])) ++dominators[i];
        }
        if (dominators[i] == 0) fronts[0].push_back(i);
    }
    while (!fronts.back().empty()) {
        std::vector<std::size_t> next;
        for (std::size_t i : fronts.back())
            for (std::size_t j : dominated[i])
                if (--dominators[j] == 0) next.push_back(j);
        std::sort(next.begin(), next.end());
        fronts.push_back(std::move(next));
    }
    fronts.pop_back();
    return fronts;
}

std::vector<double> crowding_distance(const std::vector<Objectives>& points, const std::vector<std::size_t>& front) {
    const std::size_t n = front.size();
    std::vector<double> distance(n, 0.0);
    if (n <= 2) {
        std::fill(distance.begin(), distance.end(), std::numeric_limits<double>::infinity());
        return distance;
    }
    // Infeasible points compare by their violation alone, so that is their one objective.
    using Getter = double (*)(const Objectives&);
    const std::vector<Getter> objectives =
        points[front[0]].feasible()
            ? std::vector<Getter>{[](const Objectives& o) { return o.time; }, [](const Objectives& o) { return o.error; }}
            : std::vector<Getter>{[](const Objectives& o) { return o.violation; }};
    for (Getter value : objectives) {
        std::vector<std::size_t> order(n);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return value(points[front[a]]) < value(points[front[b]]); });
        const double lo = value(points[front[order.front()]]), hi = value(points[front[order.back()]]);
        distance[order.front()] = distance[order.back()] = std::numeric_limits<double>::infinity();
        const double range = hi - lo;
        if (!(range > 0) || !std::isfinite(range)) continue;  // all equal on this objective: no spread to reward
        for (std::size_t k = 1; k + 1 < n; ++k)
            distance[order[k]] += (value(points[front[order[k + 1]]]) - value(points[front[order[k - 1]]])) / range;
    }
    return distance;
}

std::vector<CrowdedRank> crowded_ranks(const std::vector<Objectives>& points) {
    std::vector<CrowdedRank> ranks(points.size());
    const auto fronts = non_dominated_sort(points);
    for (std::size_t f = 0; f < fronts.size(); ++f) {
        const std::vector<double> distance = crowding_distance(points, fronts[f]);
        for (std::size_t k = 0; k < fronts[f].size(); ++k) ranks[fronts[f][k]] = {static_cast<int>(f), distance[k]};
    }
    return ranks;
}

bool crowded_better(const CrowdedRank& a, const CrowdedRank& b) {
    if (a.front != b.front) return a.front < b.front;
    return a.crowding > b.crowding;
}

std::vector<std::size_t> select_best(const std::vector<CrowdedRank>& ranks, std::size_t count) {
    std::vector<std::size_t> order(ranks.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return crowded_better(ranks[a], ranks[b]); });
    order.resize(std::min(count, order.size()));
    return order;
}

std::size_t binary_tournament(const std::vector<CrowdedRank>& ranks, Rng& rng) {
    if (ranks.empty()) throw Error("binary_tournament: no contestants");
    const std::size_t a = rng.index(ranks.size());
    if (ranks.size() == 1) return a;
    std::size_t b = rng.index(ranks.size() - 1);
    if (b >= a) ++b;
    return crowded_better(ranks[b], ranks[a]) ? b : a;
}

namespace {
std::vector<Edit> without_duplicates(std::vector<Edit> edits) {
    std::vector<Edit> out;
    for (Edit& e : edits)
        if (std::find(out.begin(), out.end(), e) == out.end()) out.push_back(std::move(e));
    return out;
}
}  // namespace

std::pair<std::vector<Edit>, std::vector<Edit>> messy_crossover(const std::vector<Edit>& a, const std::vector<Edit>& b,
                                                                Rng& rng) {
    std::vector<Edit> all = a;
    all.insert(all.end(), b.begin(), b.end());
    // Fisher-Yates with the run's Rng (std::shuffle's draws are not fixed by the standard).
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[rng.index(i)]);
    const std::size_t cut =
        all.empty() ? 0 : static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(all.size())));
    std::vector<Edit> first(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(cut));
    std::vector<Edit> second(all.begin() + static_cast<std::ptrdiff_t>(cut), all.end());
    return {without_duplicates(std::move(first)), without_duplicates(std::move(second))};
}

}  // namespace gi
