#include "run/search_generation.hpp"

#include <optional>

#include "genome/genome_ops.hpp"
#include "run/generation_parts.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

GenerationRecord generation_record(int index, const ScoredBatch& batch) {
    GenerationRecord g;
    g.index = index;
    g.case_index = batch.case_index;
    g.original = batch.original;
    g.distinct = batch.distinct;
    for (const Scored& s : batch.scored) {
        IndividualRecord i;
        i.genome = genome_to_text(s.genome);
        i.status = s.result.status;
        i.error = s.result.error;
        i.time = s.result.time;
        i.detail = s.result.detail;
        i.accepted = s.accepted;
        i.speedup = s.speedup;
        i.repeat = s.repeat;
        i.temperature = s.temperature;
        ++g.evaluated;
        if (s.result.status != EvalStatus::CompileError) ++g.compiled;
        if (s.accepted) {
            ++g.accepted;
            if (s.speedup > g.best_speedup) {
                g.best_speedup = s.speedup;
                g.best_genome = i.genome;
            }
        }
        g.individuals.push_back(std::move(i));
    }
    return g;
}

void update_best(BestRecord& best, int generation, const ScoredBatch& batch) {
    for (const Scored& s : batch.scored) {
        if (!s.accepted || s.speedup <= best.speedup) continue;
        best.found = true;
        best.genome = genome_to_text(s.genome);
        best.speedup = s.speedup;
        best.generation = generation;
        best.case_index = batch.case_index;
        best.original = original_for(s.result, batch.original);
        best.time = s.result.time;
        best.error = s.result.error;
    }
}

// "generation 3/50", or "generation 3" for a search until the time limit.
std::string generation_name(int generation, int generations) {
    return "generation " + std::to_string(generation + 1) +
           (generations == kGenerationsUntilTimeLimit ? std::string() : "/" + std::to_string(generations));
}

// The line a generation ends with: what it found, and where its time went.
std::string generation_line(const EvolveRun& run, const std::string& name, int case_index, const GenerationRecord& g,
                            const GenerationTimes& times) {
    const double evaluate_s = times.evaluate_s;
    const double gate_s = times.gate_s;
    return name +
           (run.options.time_limit_s > 0
                ? " [" + fixed(run.budget.elapsed(), 0) + " of " + fixed(run.options.time_limit_s, 0) + " s]"
                : std::string()) +
           ": case " + std::to_string(case_index) + ", " + std::to_string(g.evaluated) + " individuals (" +
           std::to_string(g.distinct) + " distinct), " + std::to_string(g.compiled) + " compiled, " +
           std::to_string(g.accepted) + " accepted, best " + fixed(g.best_speedup, 3) + "x, best so far " +
           fixed(run.record.best.speedup, 3) + "x; evaluated in " + fixed(evaluate_s, 1) + " s" + times.spent +
           (run.checker != nullptr ? ", sanitizer gate " + fixed(gate_s, 1) + " s" +
                                         (times.overlap_note.empty() ? std::string()
                                                                     : " (alongside" + times.overlap_note + ")")
                                   : std::string()) +
           (evaluate_s + gate_s > 0 ? "; " + fixed(60.0 * g.evaluated / (evaluate_s + gate_s), 0) + " individuals a minute"
                                    : std::string());
}

}  // namespace

GenerationEnd search_generation(EvolveRun& run, GateOverlap& gate, SearchPace& pace) {
    const EvolveOptions& options = run.options;
    Checkpoint& state = run.state;
    RunRecord& record = run.record;
    const int generation = state.next_generation;
    const int case_index = static_cast<int>(run.rng.index(static_cast<std::size_t>(run.evaluator.case_count())));
    // Whether a generation after this one will start, judged as this one's gate starts.
    auto breeds_again = [&](double expected_s) { return generation + 1 < options.generations && pace.fits(expected_s); };
    const std::string name = generation_name(generation, options.generations);
    auto evaluate = [&](const std::vector<Genome>& genomes, int on_case) { return run.evaluate_batch(genomes, on_case); };
    // Set when the deadline stopped this generation part of the way (run/generation_parts.hpp).
    std::optional<GenerationParts> stopped;
    auto evaluate_population = [&]() {
        const bool in_parts = pace.deadline.set() && (pace.seconds_a_genome < 0 || !pace.fits(pace.last_generation_s));
        const std::size_t n = state.population.size();
        if (in_parts || pace.seconds_a_genome < 0 ||
            pace.seconds_a_genome * static_cast<double>(n) >= kGenerationStartLineSeconds)
            run.progress(generation_start_line(name, n, pace.seconds_a_genome, pace.deadline, in_parts));
        if (!in_parts) return run.evaluate_batch(state.population, case_index);
        GenerationParts parts = evaluate_in_parts(state.population, case_index, run.grammar, evaluate, pace.deadline,
                                                  pace.seconds_a_genome, name, run.progress);
        const bool cut = parts.stopped();
        ScoredBatch evaluated = std::move(parts.batch);
        if (cut) stopped = std::move(parts);
        return evaluated;
    };
    GenerationTimes times;
    ScoredBatch batch;
    const std::vector<Evaluator::TimeSpent> spent_before = run.evaluator.report().time_spent;
    const double whole_start = run.budget.clock();
    std::optional<ScoredBatch> whole =
        run.hooks.evaluate_generation ? run.hooks.evaluate_generation(generation, *run.strategy) : std::nullopt;
    if (whole) {
        batch = std::move(*whole);
        gate.gate_evaluated(batch, whole_start, times);
        times.spent = spent_between(spent_before, run.evaluator.report().time_spent);
    } else {
        batch = gate.evaluate(state.population, case_index, evaluate_population, times);
        gate.gate(batch, *run.strategy, run.rng, stopped.has_value(), [&] { return breeds_again(times.evaluate_s); },
                  times);
        if (run.hooks.after_gate) run.hooks.after_gate(generation, batch, *run.strategy);
    }
    record.search_evaluate_seconds += times.evaluate_s;
    record.search_gate_seconds += times.gate_s;
    record.generations.push_back(generation_record(generation, batch));
    update_best(record.best, generation, batch);
    state.next_generation = generation + 1;
    // A stopped generation breeds nothing, and is saved with the search's end: a checkpoint of
    // it in the search phase would resume with its own population as the next generation's.
    if (!stopped) state.population = run.strategy->next_population(batch, run.rng);
    run.budget.charge(record.search_seconds);
    if (!stopped) run.save();
    pace.last_generation_s = times.evaluate_s + times.gate_s;
    if (!batch.scored.empty()) pace.seconds_a_genome = times.evaluate_s / static_cast<double>(batch.scored.size());
    if (record.best.found) run.write_best(parse_genome(record.best.genome));
    run.progress(generation_line(run, name, case_index, record.generations.back(), times));
    GenerationEnd end;
    if (!stopped) {
        end.overrun_cause = "its last generation took " + fixed(pace.last_generation_s, 1) + " s";
        return end;
    }
    // The variants evaluated count: the best so far goes on to be confirmed and minimised.
    const std::string n = std::to_string(generation + 1);
    const std::string how_far =
        " after " + std::to_string(batch.scored.size()) + " of " + std::to_string(stopped->planned) + " variants";
    record.stop_reason = "time limit (generation " + n + " stopped" + how_far + ")";
    run.progress("time limit: the search stopped in generation " + n + how_far + "; best so far " +
                 fixed(record.best.speedup, 3) + "x");
    end.stopped = true;
    end.overrun_cause = (stopped->parts == 1 ? std::string("its one part took ")
                                             : "the last of its " + std::to_string(stopped->parts) + " parts took ") +
                        fixed(stopped->last_part_seconds, 1) + " s, its gate " + fixed(times.gate_s, 1) + " s";
    return end;
}

}  // namespace gi
