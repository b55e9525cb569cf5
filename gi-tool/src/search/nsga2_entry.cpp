// `--strategy nsga2` in the strategy table (search/nsga2.hpp), with its chart in the run report.
#include <algorithm>

#include "search/nsga2.hpp"
#include "search/strategy_table.hpp"

namespace gi {
namespace {

// Every individual that ran, and the front of those no other beats on both time and error, by the
// median time over the original's on its case.
std::vector<LineChart> time_against_error_chart(const std::vector<GenerationRecord>& generations) {
    struct Point {
        double time, error;
    };
    std::vector<Point> all;
    for (const GenerationRecord& g : generations)
        for (const IndividualRecord& i : g.individuals)
            if (i.status == EvalStatus::Ok && !i.repeat && i.time.valid() && g.original.valid() && g.original.median_ms > 0)
                all.push_back({i.time.median_ms / g.original.median_ms, i.error});
    std::vector<Point> front;
    for (const Point& p : all) {
        bool dominated = false;
        for (const Point& q : all)
            dominated |= q.time <= p.time && q.error <= p.error && (q.time < p.time || q.error < p.error);
        if (!dominated) front.push_back(p);
    }
    std::sort(front.begin(), front.end(), [](const Point& a, const Point& b) { return a.time < b.time; });
    ChartSeries everyone{"individuals that ran", "#bbbbbb", {}, {}, true, false};
    ChartSeries best{"Pareto front", "#d62728", {}, {}};
    // A thousand points show the cloud; more only make the page heavier.
    const std::size_t step = std::max<std::size_t>(1, all.size() / 1000);
    for (std::size_t k = 0; k < all.size(); k += step) everyone.x.push_back(all[k].time), everyone.y.push_back(all[k].error);
    for (const Point& p : front) best.x.push_back(p.time), best.y.push_back(p.error);
    return {LineChart{"Time against error (nsga2)", "time / original's time", "error", {everyone, best}}};
}

}  // namespace

StrategyEntry nsga2_strategy_entry() {
    StrategyEntry entry;
    entry.name = "nsga2";
    entry.summary = "GEVO's multi-objective search over time and error";
    entry.make = strategy_factory<Nsga2Strategy>();
    entry.charts = time_against_error_chart;
    return entry;
}

}  // namespace gi
