// `--strategy anneal` in the strategy table: the Strategy face of the asynchronous master
// (search/anneal.hpp), its option and its chart in the run report.
#include <algorithm>

#include "search/anneal.hpp"
#include "search/strategy_table.hpp"
#include "util/median.hpp"

namespace gi {
namespace {

// The temperatures the parents of each block's children were drawn at (median and range; seed
// 003's draws are log-uniform between the best individual's deviation and mean), with the share of
// the block accepted beside them.
std::vector<LineChart> temperature_chart(const std::vector<GenerationRecord>& generations) {
    ChartSeries median{"median temperature", "#1f77b4", {}, {}};
    ChartSeries low{"lowest", "#aec7e8", {}, {}, true, false};
    ChartSeries high{"highest", "#ff9896", {}, {}, true, false};
    ChartSeries accepted{"accepted, % of the block / 100", "#2ca02c", {}, {}};
    for (const GenerationRecord& g : generations) {
        std::vector<double> temperatures;
        for (const IndividualRecord& i : g.individuals)
            if (i.temperature > 0) temperatures.push_back(i.temperature);
        const double x = g.index + 1;
        if (!temperatures.empty()) {
            median.x.push_back(x), median.y.push_back(median_of(temperatures));
            low.x.push_back(x), low.y.push_back(*std::min_element(temperatures.begin(), temperatures.end()));
            high.x.push_back(x), high.y.push_back(*std::max_element(temperatures.begin(), temperatures.end()));
        }
        if (g.evaluated > 0) accepted.x.push_back(x), accepted.y.push_back(static_cast<double>(g.accepted) / g.evaluated);
    }
    return {LineChart{"Annealing: the temperature of each block's draws, and how much of the block was accepted", "block",
                      "temperature / share", {median, low, high, accepted}}};
}

}  // namespace

AnnealStrategy::AnnealStrategy(StrategyContext context) : context_(std::move(context)) {}

AnnealStrategy::~AnnealStrategy() = default;

std::optional<ScoredBatch> AnnealStrategy::evaluate_generation(SearchServices& services, int generation) {
    if (!master_) {
        AnnealOptions options;
        options.acceptance = services.acceptance;
        options.batch = static_cast<std::size_t>(context_.setting("--anneal-batch"));
        options.checker = services.checker;
        options.prefetch = context_.prefetch;
        // A resumed run continues the master's checkpointed state, so it ends where the
        // uninterrupted run does. A checkpoint from before that state was kept has none past the
        // first generation: the run goes on from the history, with draws that depend on how far it got.
        const bool legacy = restored_.empty() && generation > 0;
        const std::uint64_t seed =
            services.seed * 0x9E3779B97F4A7C15ULL +
            (legacy && services.history != nullptr ? static_cast<std::uint64_t>(services.history->individual_count()) : 0);
        master_ = std::make_unique<AnnealMaster>(*context_.grammar, context_.base, context_.draw, services.pool(),
                                                 services.history, options, seed);
        if (!restored_.empty()) master_->restore(restored_);
        else if (legacy) master_->load_history();
    }
    return anneal_batch(master_->run(context_.population));
}

StrategyEntry anneal_strategy_entry() {
    StrategyEntry entry;
    entry.name = "anneal";
    entry.summary = "Paraiso's asynchronous genetic annealing";
    entry.options = {{"--anneal-batch", "children per evaluator call (a batch lets the cuda evaluator compile them in parallel)",
                      1, 100000, 1}};
    entry.make = strategy_factory<AnnealStrategy>();
    entry.charts = temperature_chart;
    return entry;
}

}  // namespace gi
