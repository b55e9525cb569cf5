#pragma once
// The history database wired into a `gi-tool evolve` run. It opens DIR/history.sqlite the way the
// run's --resume/--restart asks (refusing a foreign database before anything is written), and gives
// the evolve loop an evaluation hook through which every strategy's generations go:
//   gp, nsga2: the generation is evaluated through the fitness cache (HistoryEvaluator) and each
//              individual is stored with its birth and parents (Strategy::births);
//   anneal:    a strategy that evaluates its generations itself (Strategy::evaluate_generation)
//              is lent the run's `workers` evaluators, each through the cache, and the database.
// Tuning and minimisation measure programs repeatedly on purpose, so they bypass the cache.
// At the end the Pareto front of (time, error) over the run's individuals and the member the
// error budget chooses are added to run.xml and written to pareto.xml.
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "history/history.hpp"
#include "history/history_evaluator.hpp"
#include "search/anneal_pool.hpp"
#include "run/evolve.hpp"

namespace gi {

struct SearchHistoryOptions {
    std::size_t workers = 1;  // --workers: evaluations in flight for anneal
};

// The default of --workers for an evaluator kind: 1 for the GPU (two variants timed on one GPU at
// once would disturb each other's timings), the machine's cores for the others.
std::size_t default_workers(const std::string& evaluator_name);

struct ParetoMember {
    std::int64_t id = 0;
    std::string genome;
    double relative_time = 0;  // variant / original on the same case
    double time_ms = 0, original_ms = 0;
    double error = 0;
    bool within_budget = false;
    bool chosen = false;
};

// The non-dominated (time, error) members among the individuals that ran (one per genome, its
// latest row), fastest first; the fastest within `max_error` (least error on a tie) is chosen.
std::vector<ParetoMember> pareto_members(const std::vector<IndividualRow>& rows, double max_error);

// <pareto-front max-error=".." chosen=".."><member .../></pareto-front> as an XML element's text.
std::string pareto_xml(const std::vector<ParetoMember>& front, double max_error);

class SearchHistory {
public:
    using EvaluatorMaker = std::function<std::unique_ptr<Evaluator>()>;

    // `make_worker` builds the extra evaluators anneal's workers 2..N use (the first shares
    // `evaluator`). Throws gi::UsageError/gi::Error as evolve() would for a directory that holds
    // another run, and gi::Error for a database that is foreign or from another kernel/grammar.
    SearchHistory(const Grammar& grammar, Evaluator& evaluator, EvaluatorMaker make_worker,
                  const EvolveOptions& options, const std::filesystem::path& out_dir, OutMode mode,
                  SearchHistoryOptions history_options);
    ~SearchHistory();

    // The evaluator to hand to evolve(): the run's own, serialised with anneal's first worker.
    Evaluator& evaluator() { return *locked_; }
    // `base` with the generation hooks set: the fitness cache, the database's rows, anneal's workers.
    EvolveHooks hooks(EvolveHooks base);
    History& history() { return *history_; }
    // Share of the workers' time spent evaluating from the pool's start to the end of the last
    // block the search asked for (anneal; 0 otherwise). Evaluations still running then are not
    // counted, so this errs low.
    double utilisation() const;

    // Writes pareto.xml and adds the front to run.xml.
    void finish(const RunRecord& record);

private:
    // Adds a gated generation's individuals to the database (with their births and parents).
    void record_generation(int generation, const ScoredBatch& batch, const Strategy& strategy);
    // The --workers evaluators lent to a strategy that evaluates its generations itself, made at
    // the first call.
    EvaluatorPool& worker_pool();

    const Grammar& grammar_;
    EvolveOptions options_;
    std::filesystem::path out_dir_;
    SearchHistoryOptions history_options_;
    EvaluatorMaker make_worker_;
    std::unique_ptr<LockedEvaluator> locked_;
    std::unique_ptr<History> history_;
    std::unique_ptr<HistoryEvaluator> cached_;
    // The workers of a strategy that evaluates its generations itself (anneal).
    std::vector<std::unique_ptr<Evaluator>> extra_;
    std::vector<std::unique_ptr<HistoryEvaluator>> worker_views_;
    std::unique_ptr<EvaluatorPool> pool_;
    double busy_at_last_block_ = 0, elapsed_at_last_block_ = 0;
};

}  // namespace gi
