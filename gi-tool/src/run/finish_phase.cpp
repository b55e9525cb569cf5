#include <string>
#include <vector>

#include "genome/genome_ops.hpp"
#include "minimise/minimise.hpp"
#include "run/evolve_phases.hpp"
#include "run/final_check.hpp"

namespace gi {
namespace {

// The best with the edits that do not matter removed, on the last training case the search used.
Genome minimise_best(EvolveRun& run, const Genome& best) {
    RunRecord& record = run.record;
    if (!run.options.minimise) {
        record.minimise.note = "not run: --no-minimise";
        return best;
    }
    if (!record.best.found) {
        record.minimise.note = "not run: no variant was accepted";
        return best;
    }
    const int case_index = record.generations.empty() ? record.best.case_index : record.generations.back().case_index;
    run.progress("minimising " + std::to_string(genome_item_count(best)) + " items on case " + std::to_string(case_index));
    MinimiseOptions minimise_options = run.options.minimise_options;
    minimise_options.deadline = run.budget.deadline(RunPhase::Minimise);
    run.budget.mark();
    record.minimise = minimise(best, run.grammar, run.evaluator, case_index, minimise_options);
    run.budget.charge(record.minimise_seconds);
    if (const std::string over =
            run.budget.overran(RunPhase::Minimise, minimise_options.deadline, "a comparison cannot be interrupted");
        !over.empty())
        record.minimise.note += (record.minimise.note.empty() ? "" : "; ") + over;
    if (record.minimise.stopped) run.progress("minimise: " + record.minimise.note);
    return parse_genome(record.minimise.after);
}

Genome post_tune(EvolveRun& run, const Genome& genome) {
    RunRecord& record = run.record;
    if (!run.options.post_tune) {
        record.post_tune.note = "not run: --no-post-tune";
        return genome;
    }
    record.post_tune = run.tune_parameters(RunPhase::PostTune, genome, record.post_tune_seconds);
    run.progress("post-tune: " + record.post_tune.note);
    return parse_genome(record.post_tune.best);
}

// The genome the run ships: `made` when it passes the checker's final checks, else the first that
// does along the way it was made (run/final_check.hpp); `made` itself without a checker.
Genome final_check(EvolveRun& run, const Genome& made) {
    RunRecord& record = run.record;
    run.budget.mark();
    Genome chosen = made;
    if (run.checker != nullptr) {
        std::vector<Genome> candidates{made};
        if (record.minimise.ran) candidates.push_back(parse_genome(record.minimise.after));
        if (record.best.found) candidates.push_back(parse_genome(record.best.genome));
        if (record.pre_tune.ran) candidates.push_back(parse_genome(record.pre_tune.best));
        candidates.push_back(parse_genome(record.base_genome));
        const int case_index = record.generations.empty() ? 0 : record.generations.back().case_index;
        const Deadline deadline = run.budget.deadline(RunPhase::FinalCheck);
        FinalChoice choice = choose_final_genome(candidates, *run.checker, run.grammar, case_index, run.progress, deadline);
        chosen = std::move(choice.genome);
        record.final_check = std::move(choice.check);
        if (const std::string over = run.budget.overran(RunPhase::FinalCheck, deadline,
                                                        "the first candidate's sanitizer run and validation are always done");
            !over.empty())
            record.final_check.note += (record.final_check.note.empty() ? "" : "; ") + over;
    } else {
        record.final_check.note = "no sanitizer or held-out validation: the " + run.evaluator.name() +
                                  " evaluator does not offer them";
    }
    run.budget.charge(record.final_check_seconds);
    return chosen;
}

}  // namespace

void finish_phase(EvolveRun& run) {
    RunRecord& record = run.record;
    const Genome best = parse_genome(record.best.found ? record.best.genome : record.base_genome);
    const Genome final_genome = final_check(run, post_tune(run, minimise_best(run, best)));
    record.final_genome = genome_to_text(final_genome);
    record.finished = true;
    run.state.phase = CheckpointPhase::Finished;
    run.state.population.clear();
    run.save();
}

}  // namespace gi
