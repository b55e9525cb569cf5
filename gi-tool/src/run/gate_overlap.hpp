#pragma once
// A search generation's sanitizer gate (run/gate.hpp) and the work evolve() does on the next
// generation while it runs (issue 19): the gate's checks take seconds of compute-sanitizer a
// generation, and nearly every would-be parent passes them, so the next generation is usually the
// one the strategy breeds as if all pass (Strategy::guess_next_population). Meanwhile:
//   - overlapped (EvolveOptions::overlap_gate, with a checker whose checks run alongside
//     evaluation): that guess is evaluated; it is kept when it is the next generation, population
//     and case, and thrown away otherwise (VariantChecker::discard_evaluation), the generation then
//     evaluated again;
//   - else: the checker's evaluator compiles the guess (VariantChecker::prepare_ahead), which only
//     costs compiles when the gate spoils it (stereo, 45 s on an H200: 2,372 evaluations a minute
//     against 1,973 without; bench/results/2026-11-26-h200-guard-fast-compile.md).
// The guess's draws come from a copy of the generator, so a run is the same with or without either.
// What the overlap cost is the gate's time in the record (RunRecord::search_gate_* seconds,
// guesses_kept, guesses_discarded).
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/variant_checker.hpp"
#include "evaluate/evaluator.hpp"
#include "fitness/scored.hpp"
#include "grammar/grammar.hpp"
#include "run/evolve.hpp"
#include "run/run_budget.hpp"
#include "run/run_record.hpp"
#include "search/strategy.hpp"
#include "util/rng.hpp"

namespace gi {

// Where one generation's time went, for its progress line and the record.
struct GenerationTimes {
    double evaluate_s = 0;     // evaluating it (a kept guess: its evaluation, less its waits for the gate)
    double gate_s = 0;         // its gate, and what the gate's overlap cost
    std::string spent;         // where evaluating went, the evaluator's own split: " (compiles 1.2 s, ...)"
    std::string overlap_note;  // where an overlapped gate's time went: "; ..." pieces
};

// " (what 1.2 s, ...)" for the evaluator's report().time_spent from `before` to `after`; "" when it keeps none.
std::string spent_between(const std::vector<Evaluator::TimeSpent>& before, const std::vector<Evaluator::TimeSpent>& after);

class GateOverlap {
public:
    // `checker`: the evaluator's gate; nullptr when it has none (every variant passes).
    // `evaluate`: the search's evaluation of genomes on a case (EvolveHooks::evaluate_batch's or
    // evaluate_genomes), which evaluates the guess too. `record` gets the overlap's counts.
    GateOverlap(const Grammar& grammar, Evaluator& evaluator, VariantChecker* checker, const EvolveOptions& options,
                const RunBudget& budget, std::function<ScoredBatch(const std::vector<Genome>&, int)> evaluate,
                RunRecord& record);

    // Whether the guess evaluated alongside the last gate is the generation `population` on `case_index`.
    bool guess_is_next(const std::vector<Genome>& population, int case_index) const;
    // Throws away a guess no generation will use (the search stopped, or the time left does not hold
    // the generation it guessed): its evaluation was what the overlap cost, charged to the gate.
    void discard_guess();

    // The batch of the generation `population` on `case_index`: the guess when it is that
    // generation, else `evaluate_population()` (after a wrong guess is thrown away). Sets `times`.
    ScoredBatch evaluate(const std::vector<Genome>& population, int case_index,
                         const std::function<ScoredBatch()>& evaluate_population, GenerationTimes& times);

    // Gates `batch`, evaluated with `rng` as it is now. `last`: the search ends with this batch, so
    // only its best is checked and nothing is guessed. `breeds_again()`: whether a generation after
    // this one will start, asked only when the answer matters.
    void gate(ScoredBatch& batch, const Strategy& strategy, const Rng& rng, bool last,
              const std::function<bool()>& breeds_again, GenerationTimes& times);
    // Gates a batch the strategy evaluated itself from second `evaluated_since` of the budget's
    // clock (anneal's workers: they gate the parents they draw inside their evaluations, so that
    // time counts as evaluating). Nothing to overlap. Sets times.evaluate_s and times.gate_s.
    void gate_evaluated(ScoredBatch& batch, double evaluated_since, GenerationTimes& times);

private:
    // The strategy's guess at the next generation, evaluated while the gate checked this one's
    // would-be parents.
    struct Guess {
        std::vector<Genome> population;
        int case_index = 0;
        ScoredBatch batch;
        double evaluate_s = 0;  // its evaluation's wall time, less its waits for the gate's GPU turns
        std::string spent;      // where that evaluation went
    };

    void compile_ahead(const ScoredBatch& evaluated, const Strategy& strategy, const Rng& rng);
    void gate_alongside_guess(ScoredBatch& batch, const Strategy& strategy, const Rng& rng, GenerationTimes& times);
    // gate_batch, timed into times.gate_s.
    void gate_now(ScoredBatch& batch, std::size_t parents, GenerationTimes& times);

    const Grammar& grammar_;
    Evaluator& evaluator_;
    VariantChecker* checker_;
    const EvolveOptions& options_;
    const std::size_t parents_;  // the gate passes this many would-be parents
    const RunBudget& budget_;
    std::function<ScoredBatch(const std::vector<Genome>&, int)> evaluate_;
    RunRecord& record_;
    std::optional<Guess> guess_;
};

}  // namespace gi
