#pragma once
// A search strategy decides which genomes to evaluate next; the generation loop (search_loop.hpp)
// evaluates them, keeps the run record and checkpoints. `--strategy gp` (Langdon's generational GP)
// is the default; search/strategy_table.hpp holds every strategy by name, with its options.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fitness/acceptance.hpp"
#include "fitness/scored.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "history/birth.hpp"
#include "search/code_edit.hpp"
#include "util/rng.hpp"

namespace gi {

class EvaluatorPool;
class History;
class VariantChecker;

// What the run lends a strategy that evaluates its generations itself (Strategy::evaluate_generation).
struct SearchServices {
    // The run's --workers evaluators as a pool (search/anneal_pool.hpp), made at the first call:
    // the first worker is the run's own evaluator, each answers through the history's cache.
    std::function<EvaluatorPool&()> pool;
    History* history = nullptr;         // the run's database of every individual
    VariantChecker* checker = nullptr;  // the sanitizer gate (run/gate.hpp); null: every variant passes
    AcceptanceRule acceptance;
    std::uint64_t seed = 0;             // --seed
};

// The values of a strategy's own options (StrategyEntry::options), by option name ("--anneal-batch").
using StrategySettings = std::map<std::string, long long>;

struct StrategyContext {
    const Grammar* grammar = nullptr;  // outlives the strategy
    Genome base;                       // the starting genome (the pre-tuned parameters, or empty)
    std::size_t population = 100;
    EditDrawer draw;                   // code edits for mutation
    DrawPrefetch prefetch;             // may be empty: readies `draw` for a generation's parents
    double max_error = 0;              // --max-error: the error budget (nsga2 ranks against it)
    // The strategy's own options: make_strategy() leaves exactly those it declares, each given or
    // at its default, so setting() finds every one of them.
    StrategySettings settings;
    // Throws gi::Error when `option` is not one of the strategy's (a mistake in its code, not the user's).
    long long setting(const std::string& option) const;
};

class Strategy {
public:
    virtual ~Strategy() = default;
    virtual std::string name() const = 0;
    virtual std::vector<Genome> initial_population(Rng& rng) = 0;
    // The next genomes to evaluate, given the last evaluated batch.
    virtual std::vector<Genome> next_population(const ScoredBatch& evaluated, Rng& rng) = 0;
    // What next_population(evaluated, rng) would return, without changing this strategy, for
    // strategies whose breeding is a pure function of the batch and the draws; nullopt otherwise.
    // `rng` is a copy the caller made of its generator, left as next_population would leave the
    // real one (so the caller can also guess its next draws). Evolve compiles, or evaluates, the
    // guess while the sanitizer gate runs: when the gate fails no parent, it is the next generation.
    virtual std::optional<std::vector<Genome>> guess_next_population(const ScoredBatch& evaluated, Rng& rng) const {
        (void)evaluated;
        (void)rng;
        return std::nullopt;
    }
    // How many genomes initial_population (`generation` 0) or next_population (the population
    // of `generation` > 0) returns, so a resumed checkpoint's population can be checked: a damaged
    // one once ran a generation of 0 or 1000 individuals in a run of 20 (issue 39).
    virtual std::size_t population_size(int generation) const = 0;
    // State beyond the population that a checkpoint must keep (the births of the next population).
    virtual std::string save_state() const { return {}; }
    virtual void restore_state(const std::string& state) { (void)state; }
    // How each genome of the population initial_population or next_population returned last was
    // born, and of which parents, in order, for the history database; empty when the strategy
    // does not say (the database then records generation 0's as Init and later ones as Unknown).
    virtual std::vector<BirthInfo> births() const { return {}; }
    // A generation the strategy evaluates itself, with what the run lends it (anneal: its workers
    // complete `population` more individuals, gating as they go); nullopt: evolve evaluates the
    // population next_population returned, as for every strategy that breeds in generations.
    // Called only where the run has the services (gi-tool evolve's history database).
    virtual std::optional<ScoredBatch> evaluate_generation(SearchServices& services, int generation) {
        (void)services;
        (void)generation;
        return std::nullopt;
    }
};

}  // namespace gi
