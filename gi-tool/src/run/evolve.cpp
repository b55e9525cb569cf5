#include "run/evolve.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>

#include "evaluate/cuda_checker.hpp"
#include "genome/validate.hpp"
#include "grammar/shape_hash.hpp"
#include "util/atomic_file.hpp"
#include "run/final_check.hpp"
#include "run/generation_parts.hpp"
#include "run/gate_overlap.hpp"
#include "run/run_budget.hpp"
#include "genome/genome_ops.hpp"
#include "run/record_xml.hpp"
#include "run/run_files.hpp"
#include "fitness/scored.hpp"
#include "search/strategy.hpp"
#include "tune/tune.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/rng.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::string flag(bool on) { return on ? "1" : "0"; }

struct Outputs {
    std::filesystem::path dir;
    std::filesystem::path checkpoint() const { return dir / "checkpoint.xml"; }
    std::filesystem::path run_xml() const { return dir / "run.xml"; }
    std::filesystem::path best_genome() const { return dir / "best.genome"; }
    std::filesystem::path best_cu() const { return dir / "best.cu"; }
};

void write_best(const Outputs& out, const Genome& genome, const Grammar& grammar) {
    write_file_atomically(out.best_genome(), genome_to_text(genome) + "\n");
    write_file_atomically(out.best_cu(), apply_genome(genome, grammar).source);
}

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

// Why `genome` is wrong on some training case other than `except`, or "" when it is right on all of
// them (Ok, error within max_error; speed is not asked). One case may not show what an edit breaks:
// hydro's blast states have no slopes to limit, so an edit that zeroes the limiter passes there.
std::string wrong_elsewhere(Evaluator& evaluator, const Grammar& grammar, const Genome& genome, int except,
                            const AcceptanceRule& rule) {
    for (int c = 0; c < evaluator.case_count(); ++c) {
        if (c == except) continue;
        const ScoredBatch check = evaluate_genomes(evaluator, grammar, {genome}, c, rule);
        const EvalResult& r = check.scored.front().result;
        if (r.status != EvalStatus::Ok) return "case " + std::to_string(c) + ": " + to_string(r.status) + " " + r.detail;
        if (r.error > rule.max_error)
            return "case " + std::to_string(c) + ": error " + exact(r.error) + " (allowed " +
                   exact(rule.max_error) + ")";
    }
    return "";
}

void update_best(BestRecord& best, int generation, const ScoredBatch& batch) {
    for (const Scored& s : batch.scored) {
        if (!s.accepted || s.speedup <= best.speedup) continue;
        best.found = true;
        best.genome = genome_to_text(s.genome);
        best.speedup = s.speedup;
        best.generation = generation;
        best.case_index = batch.case_index;
        best.original = batch.original;
        best.time = s.result.time;
        best.error = s.result.error;
    }
}

// Before minimisation: the best must be right on every training case, not only on the one its
// generation was judged on; a "best" that one case vouches for would be minimised and offered to
// the final check in place of a correct one. Otherwise the next fastest accepted individual is
// tried (kMaxConfirmations in all); when none holds, the search found nothing. Done once, after the
// search, so it costs no search time (asynchronous strategies keep every worker busy).
// The first candidate is always checked; a later one only before `deadline` (the time limit): when
// it stops the confirmation, the best is one that was confirmed or none, never an unconfirmed one.
void confirm_best(RunRecord& record, Evaluator& evaluator, const Grammar& grammar, const AcceptanceRule& rule,
                  const Deadline& deadline, const std::function<void(const std::string&)>& progress) {
    constexpr int kMaxConfirmations = 8;
    if (!record.best.found || evaluator.case_count() < 2) return;
    struct Candidate {
        const IndividualRecord* individual;
        const GenerationRecord* generation;
    };
    std::vector<Candidate> candidates;
    for (const GenerationRecord& g : record.generations)
        for (const IndividualRecord& i : g.individuals)
            if (i.accepted) candidates.push_back({&i, &g});
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.individual->speedup > b.individual->speedup; });
    std::set<std::string> tried;
    for (const Candidate& c : candidates) {
        if (tried.count(c.individual->genome)) continue;
        if (static_cast<int>(tried.size()) >= kMaxConfirmations) break;
        if (!tried.empty() && deadline.passed()) {
            progress("time limit: confirming the best stopped after " + std::to_string(tried.size()) +
                     " candidates, none right on every training case");
            break;
        }
        tried.insert(c.individual->genome);
        const Genome genome = parse_genome(c.individual->genome);
        if (const std::string why = wrong_elsewhere(evaluator, grammar, genome, c.generation->case_index, rule); !why.empty()) {
            ++record.best.refused;
            record.best.last_refusal = "'" + c.individual->genome + "': " + why;
            continue;
        }
        BestRecord& best = record.best;
        best.genome = c.individual->genome;
        best.speedup = c.individual->speedup;
        best.generation = c.generation->index;
        best.case_index = c.generation->case_index;
        best.original = c.generation->original;
        best.time = c.individual->time;
        best.error = c.individual->error;
        return;
    }
    record.best.found = false;
}

}  // namespace

Fingerprint run_fingerprint(const Grammar& grammar, const Evaluator& evaluator, const EvolveOptions& options) {
    Fingerprint settings{
        {"kernel-sha256", grammar.source_hash},
        {"grammar-version", std::to_string(kGrammarVersion)},
        {"grammar-shape", grammar_shape_hash(grammar)},
        {"evaluator", evaluator.name()},
        {"cases", std::to_string(evaluator.case_count())},
        {"strategy", options.strategy},
        {"population", std::to_string(options.population)},
        {"seed", std::to_string(options.seed)},
        {"max-error", exact(options.acceptance.max_error)},
        {"noise-k", exact(options.acceptance.noise_k)},
        {"pre-tune", flag(options.pre_tune)},
        {"start-genome", options.start_genome},
        {"post-tune", flag(options.post_tune)},
        {"minimise", flag(options.minimise)},
        {"minimise-k", exact(options.minimise_options.k)},
        {"minimise-repeats", std::to_string(options.minimise_options.repeats)},
        {"tune-max", std::to_string(options.tune_max)},
    };
    // Only when sharded, so unsharded records keep the settings they always had.
    if (options.tune_shards > 1)
        settings.emplace_back("tune-shard", std::to_string(options.tune_shard) + "/" + std::to_string(options.tune_shards));
    return settings;
}

void check_evolve_options(const EvolveOptions& options) {
    const std::vector<std::string> strategies = strategy_names();
    if (std::find(strategies.begin(), strategies.end(), options.strategy) == strategies.end()) {
        std::string known;
        for (const std::string& name : strategies) known += (known.empty() ? "" : ", ") + name;
        throw UsageError("--strategy: unknown strategy '" + options.strategy + "' (known: " + known + ")");
    }
    if (options.population < 2) throw UsageError("--population must be at least 2");
    if (options.generations < 0) throw UsageError("--generations must not be negative");
    if (!(options.time_limit_s >= 0)) throw UsageError("--time-limit must be a number of seconds >= 0");
    if (options.generations == kGenerationsUntilTimeLimit && !(options.time_limit_s > 0))
        throw UsageError("a search without --generations needs --time-limit SECONDS to end it");
    if (options.stagnation < 0) throw UsageError("--stagnation must not be negative");
    if (!(options.acceptance.max_error >= 0)) throw UsageError("--max-error must be >= 0");
    if (!(options.acceptance.noise_k >= 0)) throw UsageError("--noise-k must be >= 0");
    if (!(options.minimise_options.k >= 0)) throw UsageError("--minimise-k must be >= 0");
    if (options.minimise_options.repeats < 1) throw UsageError("--minimise-repeats must be at least 1");
    if (options.tune_max < 1) throw UsageError("--tune-max must be at least 1");
    if (options.tune_shards < 1 || options.tune_shard < 1 || options.tune_shard > options.tune_shards)
        throw UsageError("--tune-shard K/N needs 1 <= K <= N, got " + std::to_string(options.tune_shard) + "/" +
                         std::to_string(options.tune_shards));
    if (options.tune_shards > 1 && (options.generations != 0 || !options.pre_tune))
        throw UsageError("--tune-shard splits a parameter sweep run with --generations 0 (and pre-tuning on): a search "
                         "would start from one part's winner. Sweep each part, then compare their winners");
}

RunRecord evolve(const Grammar& grammar, Evaluator& evaluator, const EvolveOptions& options,
                 const std::filesystem::path& out_dir, OutMode mode, const EvolveHooks& hooks) {
    check_evolve_options(options);
    if (evaluator.case_count() < 1)
        throw Error("evaluator '" + evaluator.name() + "' has no training cases; record some test cases first");
    const Outputs out{out_dir};
    const Fingerprint fingerprint = run_fingerprint(grammar, evaluator, options);
    auto progress = [&](const std::string& line) {
        if (hooks.progress) hooks.progress(line);
    };
    RunBudget budget(hooks.clock, progress);
    auto clock = [&]() { return budget.clock(); };
    const EditDrawer draw = hooks.draw ? hooks.draw : grammar_edit_drawer(grammar);

    Rng rng(options.seed);
    Checkpoint state;
    if (mode == OutMode::Resume) {
        if (!std::filesystem::exists(out.checkpoint()))
            throw UsageError("--resume: " + out.checkpoint().string() +
                             " does not exist, so there is no run to resume there (run without --resume to start one)");
        state = load_checkpoint(out.checkpoint());
        require_same_fingerprint(fingerprint, state.fingerprint, out.checkpoint().string());
        rng.restore(state.rng_state);
        progress("resuming " + out.dir.string() + " at " +
                 (state.phase == CheckpointPhase::Search ? "generation " + std::to_string(state.next_generation)
                                          : "phase '" + phase_word(state.phase) + "'"));
    } else {
        if (std::filesystem::exists(out.checkpoint()) && mode == OutMode::Fresh)
            throw UsageError("--out " + out.dir.string() + " already holds a run (checkpoint.xml); pass --resume to "
                             "continue it, --restart to discard it, or choose another --out");
        std::error_code ec;
        std::filesystem::create_directories(out.dir, ec);
        if (ec) throw Error(out.dir.string() + ": cannot create the output directory (" + ec.message() + ")");
        for (const auto& file : {out.checkpoint(), generation_log_path(out.checkpoint()), out.run_xml(),
                                 out.best_genome(), out.best_cu()})
            std::filesystem::remove(file, ec);
        state.phase = CheckpointPhase::Start;
        state.fingerprint = fingerprint;
    }

    // Budget options may differ from an interrupted session's, so the record says what this one used.
    RunRecord& record = state.record;
    record.settings = fingerprint;
    record.settings.emplace_back("generations", options.generations == kGenerationsUntilTimeLimit
                                                    ? std::string("until the time limit")
                                                    : std::to_string(options.generations));
    record.settings.emplace_back("time-limit-s", exact(options.time_limit_s));
    VariantChecker* checker = dynamic_cast<VariantChecker*>(&evaluator);
    budget.begin(run_time_budget(options, grammar, evaluator, checker != nullptr), record.wall_seconds);
    auto elapsed = [&]() { return budget.elapsed(); };
    auto mark = [&]() { budget.mark(); };
    auto charge = [&](double& phase) { budget.charge(phase); };
    auto deadline_of = [&](RunPhase phase) { return budget.deadline(phase); };
    auto overran = [&](RunPhase phase, const Deadline& deadline, const std::string& cause) {
        return budget.overran(phase, deadline, cause);
    };
    // The gate's processes start now and get ready while pre-tuning and the first generation run.
    if (checker != nullptr && state.phase != CheckpointPhase::Finished) checker->expect_checks();
    std::unique_ptr<Strategy> strategy;
    auto make = [&](const Genome& base) {
        StrategyContext context;
        context.grammar = &grammar;
        context.base = base;
        context.population = options.population;
        context.draw = draw;
        context.max_error = options.acceptance.max_error;
        strategy = make_strategy(options.strategy, std::move(context));
    };
    // The checkpoint after every generation, run.xml when due: each save costs the same at
    // generation 2000 as at 2 (run/run_files.hpp).
    RunFiles files(out.dir, mode == OutMode::Resume ? &state : nullptr);
    auto save = [&]() {
        record.wall_seconds = elapsed();
        state.rng_state = rng.save();
        state.strategy_state = strategy ? strategy->save_state() : std::string();
        files.save(state);
    };

    if (state.phase == CheckpointPhase::Start) {
        record.evaluator = evaluator.name();
        record.device = evaluator.device();
        record.measures_time = evaluator.measures_time();
        Genome base;
        if (!options.start_genome.empty()) {
            base = canonical_genome(parse_genome(options.start_genome), grammar);
            require_valid_genome(base, grammar, "--start");
        }
        if (options.pre_tune) {
            progress("pre-tuning the parameters");
            TuneOptions tune_options;
            tune_options.max_points = options.tune_max;
            tune_options.shard = options.tune_shard;
            tune_options.shards = options.tune_shards;
            tune_options.rule = options.acceptance;
            tune_options.parsimony_k = options.minimise_options.k;
            tune_options.deadline = deadline_of(RunPhase::PreTune);
            mark();
            record.pre_tune = tune(base, grammar, evaluator, tune_options, rng);
            charge(record.pre_tune_seconds);
            if (const std::string over = overran(RunPhase::PreTune, tune_options.deadline, "a batch of points cannot be interrupted");
                !over.empty())
                record.pre_tune.note += "; " + over;
            base = parse_genome(record.pre_tune.best);
            progress("pre-tune: " + record.pre_tune.note +
                     (record.pre_tune.ran ? "; start from '" + record.pre_tune.best + "'" : ""));
        } else {
            record.pre_tune.note = "not run: --no-pre-tune";
        }
        record.base_genome = genome_to_text(base);
        make(base);
        state.population = strategy->initial_population(rng);
        state.phase = CheckpointPhase::Search;
        state.next_generation = 0;
        save();
    } else {
        make(parse_genome(record.base_genome));
        strategy->restore_state(state.strategy_state);
        check_resumed_population(state, grammar, strategy->population_size(state.next_generation),
                                 out.checkpoint().string());
    }

    auto evaluate_batch = [&](const std::vector<Genome>& genomes, int case_index) {
        return hooks.evaluate_batch ? hooks.evaluate_batch(genomes, case_index)
                                    : evaluate_genomes(evaluator, grammar, genomes, case_index, options.acceptance);
    };
    GateOverlap gate(grammar, evaluator, checker, options, budget, evaluate_batch, record);
    mark();
    const Deadline search_deadline = deadline_of(RunPhase::Search);
    // A generation expected to end by the search's deadline (to take as long as the last one, its
    // evaluation and gate) is evaluated whole. One expected to end past it, or whose time is not
    // known yet (the first in this session), is evaluated in parts that the deadline can stop
    // (run/generation_parts.hpp); it starts only while one variant is expected to fit. The guess at
    // the next generation is evaluated only when that generation fits, judged when it would start
    // (as the gate starts), so a run is the same with or without the overlap.
    double last_generation_s = 0;
    double seconds_a_genome = -1;  // a generation's evaluation per individual; < 0: none measured yet
    auto generation_fits = [&](double expected_s) {
        return !search_deadline.passed() && search_deadline.fits(expected_s);
    };
    std::string search_overrun_cause;  // what the last generation's step that could not be interrupted took
    while (state.phase == CheckpointPhase::Search) {
        if (state.next_generation >= options.generations) {
            record.stop_reason = "generations";
            break;
        }
        if (options.stagnation > 0 && generations_without_gain(record.generations) >= options.stagnation) {
            record.stop_reason = "stagnation: no best " + fixed(100 * kStagnationGain, 0) +
                                 "% faster than the one before it in the last " + std::to_string(options.stagnation) +
                                 " generations";
            gate.discard_guess();
            break;
        }
        if (!generation_fits(last_generation_s)) {
            // A guess that is the next generation was evaluated while the budget lasted: that
            // generation started in time, and ends as one started just before the limit does.
            Rng peek = rng;
            if (!gate.guess_is_next(state.population,
                                    static_cast<int>(peek.index(static_cast<std::size_t>(evaluator.case_count()))))) {
                // Evaluated ahead for a generation the budget no longer has whole: the gate's overlap cost it.
                gate.discard_guess();
                if (seconds_a_genome < 0 || !generation_fits(seconds_a_genome)) {
                    record.stop_reason = "time limit";
                    break;
                }
            }
        }
        const int generation = state.next_generation;
        const int case_index = static_cast<int>(rng.index(static_cast<std::size_t>(evaluator.case_count())));
        // Whether a generation after this one will start, judged as this one's gate starts.
        auto breeds_again = [&](double expected_s) {
            return generation + 1 < options.generations && generation_fits(expected_s);
        };
        const std::string name = "generation " + std::to_string(generation + 1) +
                                 (options.generations == kGenerationsUntilTimeLimit ? std::string()
                                                                                    : "/" + std::to_string(options.generations));
        // Set when the deadline stopped this generation part of the way (run/generation_parts.hpp).
        std::optional<GenerationParts> stopped;
        auto evaluate_population = [&]() {
            const bool in_parts = search_deadline.set() && (seconds_a_genome < 0 || !generation_fits(last_generation_s));
            const std::size_t n = state.population.size();
            if (in_parts || seconds_a_genome < 0 || seconds_a_genome * static_cast<double>(n) >= kGenerationStartLineSeconds)
                progress(generation_start_line(name, n, seconds_a_genome, search_deadline, in_parts));
            if (!in_parts) return evaluate_batch(state.population, case_index);
            GenerationParts parts = evaluate_in_parts(state.population, case_index, grammar, evaluate_batch,
                                                      search_deadline, seconds_a_genome, name, progress);
            const bool cut = parts.stopped();
            ScoredBatch evaluated = std::move(parts.batch);
            if (cut) stopped = std::move(parts);
            return evaluated;
        };
        GenerationTimes times;
        ScoredBatch batch;
        const std::vector<Evaluator::TimeSpent> spent_before = evaluator.time_spent();
        const double whole_start = clock();
        std::optional<ScoredBatch> whole = hooks.evaluate_generation ? hooks.evaluate_generation(generation, *strategy)
                                                                     : std::nullopt;
        if (whole) {
            batch = std::move(*whole);
            gate.gate_evaluated(batch, whole_start, times);
            times.spent = spent_between(spent_before, evaluator.time_spent());
        } else {
            batch = gate.evaluate(state.population, case_index, evaluate_population, times);
            gate.gate(batch, *strategy, rng, stopped.has_value(), [&] { return breeds_again(times.evaluate_s); }, times);
            if (hooks.after_gate) hooks.after_gate(generation, batch, *strategy);
        }
        const double evaluate_s = times.evaluate_s;
        const double gate_s = times.gate_s;
        const std::string& spent = times.spent;
        const std::string& overlap_note = times.overlap_note;
        record.search_evaluate_seconds += evaluate_s;
        record.search_gate_seconds += gate_s;
        record.generations.push_back(generation_record(generation, batch));
        update_best(record.best, generation, batch);
        state.next_generation = generation + 1;
        // A stopped generation breeds nothing, and is saved with the search's end: a checkpoint of
        // it in the search phase would resume with its own population as the next generation's.
        if (!stopped) state.population = strategy->next_population(batch, rng);
        charge(record.search_seconds);
        if (!stopped) save();
        last_generation_s = evaluate_s + gate_s;
        if (!batch.scored.empty()) seconds_a_genome = evaluate_s / static_cast<double>(batch.scored.size());
        if (record.best.found) write_best(out, parse_genome(record.best.genome), grammar);
        const GenerationRecord& g = record.generations.back();
        progress(name +
                 (options.time_limit_s > 0 ? " [" + fixed(elapsed(), 0) + " of " + fixed(options.time_limit_s, 0) + " s]" : std::string()) +
                 ": case " + std::to_string(case_index) + ", " + std::to_string(g.evaluated) + " individuals (" +
                 std::to_string(g.distinct) + " distinct), " + std::to_string(g.compiled) + " compiled, " +
                 std::to_string(g.accepted) + " accepted, best " + fixed(g.best_speedup, 3) + "x, best so far " +
                 fixed(record.best.speedup, 3) + "x; evaluated in " + fixed(evaluate_s, 1) + " s" + spent +
                 (checker != nullptr ? ", sanitizer gate " + fixed(gate_s, 1) + " s" +
                                           (overlap_note.empty() ? std::string() : " (alongside" + overlap_note + ")")
                                     : std::string()) +
                 (evaluate_s + gate_s > 0 ? "; " + fixed(60.0 * g.evaluated / (evaluate_s + gate_s), 0) + " individuals a minute"
                                          : std::string()));
        if (stopped) {
            // The variants evaluated count: the best so far goes on to be confirmed and minimised.
            const std::string n = std::to_string(generation + 1);
            const std::string how_far = " after " + std::to_string(batch.scored.size()) + " of " +
                                        std::to_string(stopped->planned) + " variants";
            record.stop_reason = "time limit (generation " + n + " stopped" + how_far + ")";
            progress("time limit: the search stopped in generation " + n + how_far + "; best so far " +
                     fixed(record.best.speedup, 3) + "x");
            search_overrun_cause = (stopped->parts == 1 ? std::string("its one part took ")
                                                         : "the last of its " + std::to_string(stopped->parts) + " parts took ") +
                                   fixed(stopped->last_part_seconds, 1) + " s, its gate " + fixed(gate_s, 1) + " s";
            break;
        }
        search_overrun_cause = "its last generation took " + fixed(last_generation_s, 1) + " s";
        if (hooks.after_checkpoint) hooks.after_checkpoint(state.next_generation);
    }
    if (state.phase == CheckpointPhase::Search) {
        charge(record.search_seconds);
        if (record.stop_reason.rfind("time limit", 0) == 0)
            if (const std::string over = overran(RunPhase::Search, search_deadline, search_overrun_cause); !over.empty())
                record.stop_reason += "; " + over;
        // Saved with the phase change, so a resumed run neither repeats nor half-counts it.
        const std::string searched_best = record.best.found ? record.best.genome : std::string();
        const Deadline confirm_deadline = deadline_of(RunPhase::Confirm);
        confirm_best(record, evaluator, grammar, options.acceptance, confirm_deadline, progress);
        charge(record.confirm_seconds);
        overran(RunPhase::Confirm, confirm_deadline, "checking a candidate on every training case cannot be interrupted");
        if (record.best.found && record.best.genome != searched_best)
            progress("best: '" + searched_best + "' is wrong on another training case (" + record.best.last_refusal +
                     "); taking '" + record.best.genome + "'");
        else if (!record.best.found && !searched_best.empty())
            progress("best: no accepted variant is right on every training case (" + record.best.last_refusal + ")");
        if (record.best.found) write_best(out, parse_genome(record.best.genome), grammar);
        state.phase = CheckpointPhase::Searched;
        save();
    }

    if (state.phase == CheckpointPhase::Searched) {
        Genome final_genome = record.best.found ? parse_genome(record.best.genome) : parse_genome(record.base_genome);
        if (!options.minimise) {
            record.minimise.note = "not run: --no-minimise";
        } else if (!record.best.found) {
            record.minimise.note = "not run: no variant was accepted";
        } else {
            // The seeds minimise on the last training case.
            const int case_index = record.generations.empty() ? record.best.case_index
                                                              : record.generations.back().case_index;
            progress("minimising " + std::to_string(genome_item_count(final_genome)) + " items on case " +
                     std::to_string(case_index));
            MinimiseOptions minimise_options = options.minimise_options;
            minimise_options.deadline = deadline_of(RunPhase::Minimise);
            mark();
            record.minimise = minimise(final_genome, grammar, evaluator, case_index, minimise_options);
            charge(record.minimise_seconds);
            if (const std::string over = overran(RunPhase::Minimise, minimise_options.deadline, "a comparison cannot be interrupted");
                !over.empty())
                record.minimise.note += (record.minimise.note.empty() ? "" : "; ") + over;
            if (record.minimise.stopped) progress("minimise: " + record.minimise.note);
            final_genome = parse_genome(record.minimise.after);
        }
        if (options.post_tune) {
            progress("post-tuning the parameters");
            TuneOptions tune_options;
            tune_options.max_points = options.tune_max;
            tune_options.rule = options.acceptance;
            tune_options.parsimony_k = options.minimise_options.k;
            tune_options.deadline = deadline_of(RunPhase::PostTune);
            mark();
            record.post_tune = tune(final_genome, grammar, evaluator, tune_options, rng);
            charge(record.post_tune_seconds);
            if (const std::string over = overran(RunPhase::PostTune, tune_options.deadline, "a batch of points cannot be interrupted");
                !over.empty())
                record.post_tune.note += "; " + over;
            final_genome = parse_genome(record.post_tune.best);
            progress("post-tune: " + record.post_tune.note);
        } else {
            record.post_tune.note = "not run: --no-post-tune";
        }
        mark();
        if (checker != nullptr) {
            // Fall back along the way the genome was made (run/final_check.hpp).
            std::vector<Genome> candidates{final_genome};
            if (record.minimise.ran) candidates.push_back(parse_genome(record.minimise.after));
            if (record.best.found) candidates.push_back(parse_genome(record.best.genome));
            if (record.pre_tune.ran) candidates.push_back(parse_genome(record.pre_tune.best));
            candidates.push_back(parse_genome(record.base_genome));
            const int case_index = record.generations.empty() ? 0 : record.generations.back().case_index;
            const Deadline final_deadline = deadline_of(RunPhase::FinalCheck);
            FinalChoice choice = choose_final_genome(candidates, *checker, grammar, case_index, progress, final_deadline);
            final_genome = std::move(choice.genome);
            record.final_check = std::move(choice.check);
            if (const std::string over = overran(RunPhase::FinalCheck, final_deadline,
                                                 "the first candidate's sanitizer run and validation are always done");
                !over.empty())
                record.final_check.note += (record.final_check.note.empty() ? "" : "; ") + over;
        } else {
            record.final_check.note = "no sanitizer or held-out validation: the " + evaluator.name() +
                                      " evaluator does not offer them";
        }
        charge(record.final_check_seconds);
        record.final_genome = genome_to_text(final_genome);
        record.finished = true;
        state.phase = CheckpointPhase::Finished;
        state.population.clear();
        save();
    }
    write_file_atomically(out.run_xml(), run_record_document(record));
    write_best(out, parse_genome(record.final_genome), grammar);
    return record;
}

}  // namespace gi
