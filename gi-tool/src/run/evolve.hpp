#pragma once
// One whole evolution run, as `gi-tool evolve` does it: pre-tune the parameters, search with a
// strategy (gp by default) within a budget of generations or wall time, minimise the best accepted
// genome, post-tune it, and leave in the output directory:
//   checkpoint.xml  state after every generation (resume from it with OutMode::Resume), and
//   checkpoint.generations  its log of the finished generations' records, appended to
//   run.xml         the run record: during the search when due (run/run_files.hpp), then whole
//   best.genome     the final genome (during the search: the best so far)
//   best.cu         the kernel source that genome gives
// The same seed, inputs and options give the same record, whether or not the run was interrupted.
// How: run/evolve_phases.hpp (the phases, one file each), run/evolve_run.hpp (what they share).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

#include "evaluate/evaluator.hpp"
#include "grammar/grammar.hpp"
#include "minimise/minimise.hpp"
#include "fitness/acceptance.hpp"
#include "run/checkpoint.hpp"
#include "search/code_edit.hpp"
#include "run/run_record.hpp"
#include "fitness/scored.hpp"
#include "search/strategy.hpp"

namespace gi {

struct EvolveOptions {
    std::string strategy = "gp";
    // Values of strategies' own options (search/strategy_table.hpp): the strategy takes its own,
    // at their defaults when not here.
    StrategySettings strategy_settings;
    std::size_t population = 100;
    // kGenerationsUntilTimeLimit: search until the time limit (or stagnation) stops it.
    int generations = 50;
    // 0: no wall-time budget. Otherwise the budget of the whole run (run/time_budget.hpp): every
    // phase stops at its deadline, the search between parts of a generation, and the run ends
    // within the limit and TimeBudget::margin_s().
    double time_limit_s = 0;
    // Stop the search after this many generations in a row without a best at least 1% faster than
    // the best before them (run/time_budget.hpp); 0: never.
    int stagnation = 0;
    AcceptanceRule acceptance;
    std::uint64_t seed = 1;
    bool pre_tune = true;
    // The genome search starts from (and pre-tuning sweeps around): "" is the original kernel. Lets a
    // run build on a known genome, e.g. an exhaustive parameter sweep's winner or a cache entry's.
    std::string start_genome;
    bool post_tune = true;
    bool minimise = true;
    // With a checker that can run its checks alongside evaluation (VariantChecker::
    // checks_alongside_evaluation), evaluate the strategy's guess at the next generation while the
    // gate checks this one's would-be parents; the guess is kept when the gate and the draws make
    // it the next generation exactly, else thrown away. Changes no result; off only to measure it.
    bool overlap_gate = true;
    // Before that guess, the checker's fast prescreen (VariantChecker::prescreen: the guard zones)
    // of the would-be parents the gate is sure to check, so the guess is bred without those it
    // rejects. Changes no result either; off only to measure it.
    bool prescreen_gate = true;
    int tune_max = 256;
    // Pre-tuning sweeps only part `tune_shard` (1-based) of `tune_shards`: every tune_shards-th point.
    // For an exhaustive parameter baseline too big for one sitting (--generations 0 only: a search
    // would start from one part's winner); the parts' winners are then compared side by side.
    int tune_shard = 1;
    int tune_shards = 1;
    MinimiseOptions minimise_options;
};

// EvolveOptions::generations for a search bounded by --time-limit (and stagnation) alone.
inline constexpr int kGenerationsUntilTimeLimit = 2147483647;

enum class OutMode {
    Fresh,    // the directory must not hold a run yet
    Resume,   // continue the run in the directory (its fingerprint must match)
    Restart,  // discard a run in the directory and start again
};

struct EvolveHooks {
    // Seconds on the run's clock, which the time limit is measured on; default: a steady clock from
    // evolve()'s start (gi-tool's starts with the command, so reading the cases counts too).
    std::function<double()> clock;
    std::function<void(const std::string&)> progress;    // one line per generation and phase
    std::function<void(int generations_done)> after_checkpoint;  // tests stop a run here
    EditDrawer draw;                                     // default: grammar_edit_drawer(grammar)
    DrawPrefetch prefetch;                               // with `draw`: readies it for a generation's parents
    // The search's evaluation of a generation's genomes, in place of evaluate_genomes(evaluator, ...):
    // the history database's fitness cache (run/search_history.hpp). Tuning and minimisation never
    // use it. With the gate overlapped it also evaluates the guess at the next generation.
    std::function<ScoredBatch(const std::vector<Genome>& genomes, int case_index)> evaluate_batch;
    // Each generation's batch once gated, before the next is bred: the history database records
    // who may really be a parent.
    std::function<void(int generation, const ScoredBatch& gated, const Strategy& strategy)> after_gate;
    // A strategy that evaluates a generation itself (anneal's asynchronous workers, which gate as
    // they go) returns it here; nullopt: evolve evaluates the generation.
    std::function<std::optional<ScoredBatch>(int generation, Strategy& strategy)> evaluate_generation;
};

// The inputs that must match for a checkpoint to be resumed (budget options may change).
Fingerprint run_fingerprint(const Grammar& grammar, const Evaluator& evaluator, const EvolveOptions& options);

// Throws gi::UsageError for options out of range, naming the option.
void check_evolve_options(const EvolveOptions& options);

RunRecord evolve(const Grammar& grammar, Evaluator& evaluator, const EvolveOptions& options,
                 const std::filesystem::path& out_dir, OutMode mode, const EvolveHooks& hooks = {});

}  // namespace gi
