#pragma once
// A search strategy decides which genomes to evaluate next; the generation loop (search_loop.hpp)
// evaluates them, keeps the run record and checkpoints. `--strategy gp` (Langdon's generational GP)
// is the default; other strategies register a factory here by name.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "search/code_edit.hpp"
#include "fitness/scored.hpp"
#include "util/rng.hpp"

namespace gi {

struct StrategyContext {
    const Grammar* grammar = nullptr;  // outlives the strategy
    Genome base;                       // the starting genome (the pre-tuned parameters, or empty)
    std::size_t population = 100;
    EditDrawer draw;                   // code edits for mutation
    double max_error = 0;              // --max-error: the error budget (nsga2 ranks against it)
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
};

using StrategyFactory = std::function<std::unique_ptr<Strategy>(StrategyContext)>;

// Registers a strategy under `name`; returns true so it can initialise a static in the strategy's file.
bool register_strategy(const std::string& name, StrategyFactory factory);

// Every registered name, sorted.
std::vector<std::string> strategy_names();

// Throws gi::UsageError listing the known strategies when `name` is not one.
std::unique_ptr<Strategy> make_strategy(const std::string& name, StrategyContext context);

}  // namespace gi
