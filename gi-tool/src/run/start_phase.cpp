#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "run/evolve_phases.hpp"

namespace gi {

void start_phase(EvolveRun& run) {
    RunRecord& record = run.record;
    record.evaluator = run.evaluator.name();
    record.device = run.evaluator.report().device;
    record.measures_time = run.evaluator.traits().measures_time;
    Genome base;
    if (!run.options.start_genome.empty()) {
        base = canonical_genome(parse_genome(run.options.start_genome), run.grammar);
        require_valid_genome(base, run.grammar, "--start");
    }
    if (run.options.pre_tune) {
        record.pre_tune = run.tune_parameters(RunPhase::PreTune, base, record.pre_tune_seconds);
        base = parse_genome(record.pre_tune.best);
        run.progress("pre-tune: " + record.pre_tune.note +
                     (record.pre_tune.ran ? "; start from '" + record.pre_tune.best + "'" : ""));
    } else {
        record.pre_tune.note = "not run: --no-pre-tune";
    }
    record.base_genome = genome_to_text(base);
    run.make_strategy(base);
    run.state.population = run.strategy->initial_population(run.rng);
    run.state.phase = CheckpointPhase::Search;
    run.state.next_generation = 0;
    run.save();
}

}  // namespace gi
