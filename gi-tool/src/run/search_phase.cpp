#include <optional>
#include <string>

#include "genome/genome.hpp"
#include "run/confirm_best.hpp"
#include "run/evolve_phases.hpp"
#include "run/search_generation.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// Why the search stops before its next generation, or nullopt to run it. A guess at the next
// generation (run/gate_overlap.hpp) that no generation will use is thrown away here.
std::optional<std::string> stop_before_generation(EvolveRun& run, GateOverlap& gate, const SearchPace& pace) {
    const EvolveOptions& options = run.options;
    if (run.state.next_generation >= options.generations) return "generations";
    if (options.stagnation > 0 && generations_without_gain(run.record.generations) >= options.stagnation) {
        gate.discard_guess();
        return "stagnation: no best " + fixed(100 * kStagnationGain, 0) + "% faster than the one before it in the last " +
               std::to_string(options.stagnation) + " generations";
    }
    if (!pace.fits(pace.last_generation_s)) {
        // A guess that is the next generation was evaluated while the budget lasted: that
        // generation started in time, and ends as one started just before the limit does.
        Rng peek = run.rng;
        const int next_case = static_cast<int>(peek.index(static_cast<std::size_t>(run.evaluator.case_count())));
        if (!gate.guess_is_next(run.state.population, next_case)) {
            // Evaluated ahead for a generation the budget no longer has whole: the gate's overlap cost it.
            gate.discard_guess();
            if (pace.seconds_a_genome < 0 || !pace.fits(pace.seconds_a_genome)) return "time limit";
        }
    }
    return std::nullopt;
}

// The search is over: its best is confirmed on every training case, and the phase change saved
// with it, so a resumed run neither repeats nor half-counts it.
void end_search(EvolveRun& run, const Deadline& search_deadline, const std::string& overrun_cause) {
    RunRecord& record = run.record;
    run.budget.charge(record.search_seconds);
    if (record.stop_reason.rfind("time limit", 0) == 0)
        if (const std::string over = run.budget.overran(RunPhase::Search, search_deadline, overrun_cause); !over.empty())
            record.stop_reason += "; " + over;
    const std::string searched_best = record.best.found ? record.best.genome : std::string();
    const Deadline confirm_deadline = run.budget.deadline(RunPhase::Confirm);
    confirm_best(record, run.evaluator, run.grammar, run.options.acceptance, confirm_deadline, run.progress);
    run.budget.charge(record.confirm_seconds);
    run.budget.overran(RunPhase::Confirm, confirm_deadline,
                       "checking a candidate on every training case cannot be interrupted");
    // confirm_best says itself what measuring speed again decided.
    if (record.best.found && record.best.genome != searched_best && record.best.confirm_repeats == 0)
        run.progress("best: '" + searched_best + "' is wrong on another training case (" + record.best.last_refusal +
                     "); taking '" + record.best.genome + "'");
    else if (!record.best.found && !searched_best.empty() && record.best.confirm_repeats == 0)
        run.progress("best: no accepted variant is right on every training case (" + record.best.last_refusal + ")");
    if (record.best.found) run.write_best(parse_genome(record.best.genome));
    run.state.phase = CheckpointPhase::Searched;
    run.save();
}

}  // namespace

void search_phase(EvolveRun& run) {
    auto evaluate = [&run](const std::vector<Genome>& genomes, int case_index) {
        return run.evaluate_batch(genomes, case_index);
    };
    GateOverlap gate(run.grammar, run.evaluator, run.checker, run.options, run.budget, evaluate, run.record);
    run.budget.mark();
    SearchPace pace;
    pace.deadline = run.budget.deadline(RunPhase::Search);
    std::string overrun_cause;  // what the last generation's step that could not be interrupted took
    while (true) {
        if (std::optional<std::string> stop = stop_before_generation(run, gate, pace)) {
            run.record.stop_reason = std::move(*stop);
            break;
        }
        GenerationEnd end = search_generation(run, gate, pace);
        overrun_cause = std::move(end.overrun_cause);
        if (end.stopped) break;
        if (run.hooks.after_checkpoint) run.hooks.after_checkpoint(run.state.next_generation);
    }
    end_search(run, pace.deadline, overrun_cause);
}

}  // namespace gi
