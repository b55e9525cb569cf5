#include "run/evolve_run.hpp"

#include "genome/genome_ops.hpp"
#include "run/record_xml.hpp"
#include "search/strategy_table.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::filesystem::path best_genome_file(const std::filesystem::path& dir) { return dir / "best.genome"; }
std::filesystem::path best_cu_file(const std::filesystem::path& dir) { return dir / "best.cu"; }
std::filesystem::path run_xml_file(const std::filesystem::path& dir) { return dir / "run.xml"; }

}  // namespace

EvolveRun::EvolveRun(const Grammar& grammar_, Evaluator& evaluator_, const EvolveOptions& options_,
                     const std::filesystem::path& out_dir_, OutMode mode, const EvolveHooks& hooks_)
    : grammar(grammar_),
      evaluator(evaluator_),
      options(options_),
      hooks(hooks_),
      out_dir(out_dir_),
      checker(evaluator_.checker()),
      progress([&hooks_](const std::string& line) {
          if (hooks_.progress) hooks_.progress(line);
      }),
      record(state.record),
      rng(options_.seed),
      budget(hooks_.clock, progress),
      draw_(hooks_.draw ? hooks_.draw : grammar_edit_drawer(grammar_)) {
    const Fingerprint fingerprint = run_fingerprint(grammar, evaluator, options);
    if (mode == OutMode::Resume)
        open_resumed(fingerprint);
    else
        open_new(mode, fingerprint);
    // Budget options may differ from an interrupted session's, so the record says what this one used.
    record.settings = fingerprint;
    record.settings.emplace_back("generations", options.generations == kGenerationsUntilTimeLimit
                                                    ? std::string("until the time limit")
                                                    : std::to_string(options.generations));
    record.settings.emplace_back("time-limit-s", exact(options.time_limit_s));
    budget.begin(run_time_budget(options, grammar, evaluator, checker != nullptr), record.wall_seconds);
    // The gate's processes start now and get ready while pre-tuning and the first generation run.
    if (checker != nullptr && state.phase != CheckpointPhase::Finished) checker->expect_checks();
    // The checkpoint after every generation, run.xml when due: each save costs the same at
    // generation 2000 as at 2 (run/run_files.hpp).
    files_.emplace(out_dir, mode == OutMode::Resume ? &state : nullptr);
    if (state.phase != CheckpointPhase::Start) {
        make_strategy(parse_genome(record.base_genome));
        strategy->restore_state(state.strategy_state);
        check_resumed_population(state, grammar, strategy->population_size(state.next_generation),
                                 checkpoint_file().string());
    }
}

std::filesystem::path EvolveRun::checkpoint_file() const { return out_dir / "checkpoint.xml"; }

void EvolveRun::open_resumed(const Fingerprint& fingerprint) {
    const std::filesystem::path checkpoint = checkpoint_file();
    if (!std::filesystem::exists(checkpoint))
        throw UsageError("--resume: " + checkpoint.string() +
                         " does not exist, so there is no run to resume there (run without --resume to start one)");
    state = load_checkpoint(checkpoint);
    require_same_fingerprint(fingerprint, state.fingerprint, checkpoint.string());
    rng.restore(state.rng_state);
    progress("resuming " + out_dir.string() + " at " +
             (state.phase == CheckpointPhase::Search ? "generation " + std::to_string(state.next_generation)
                                                     : "phase '" + phase_word(state.phase) + "'"));
}

void EvolveRun::open_new(OutMode mode, const Fingerprint& fingerprint) {
    const std::filesystem::path checkpoint = checkpoint_file();
    if (std::filesystem::exists(checkpoint) && mode == OutMode::Fresh)
        throw UsageError("--out " + out_dir.string() + " already holds a run (checkpoint.xml); pass --resume to "
                         "continue it, --restart to discard it, or choose another --out");
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) throw Error(out_dir.string() + ": cannot create the output directory (" + ec.message() + ")");
    for (const auto& file : {checkpoint, generation_log_path(checkpoint), run_xml_file(out_dir),
                             best_genome_file(out_dir), best_cu_file(out_dir)})
        std::filesystem::remove(file, ec);
    state.phase = CheckpointPhase::Start;
    state.fingerprint = fingerprint;
}

void EvolveRun::make_strategy(const Genome& base) {
    StrategyContext context;
    context.grammar = &grammar;
    context.base = base;
    context.population = options.population;
    context.draw = draw_;
    context.prefetch = hooks.draw ? hooks.prefetch : DrawPrefetch{};
    context.max_error = options.acceptance.max_error;
    context.settings = options.strategy_settings;
    strategy = gi::make_strategy(options.strategy, std::move(context));
}

ScoredBatch EvolveRun::evaluate_batch(const std::vector<Genome>& genomes, int case_index) const {
    return hooks.evaluate_batch ? hooks.evaluate_batch(genomes, case_index)
                                : evaluate_genomes(evaluator, grammar, genomes, case_index, options.acceptance);
}

TuneResult EvolveRun::tune_parameters(RunPhase phase, const Genome& from, double& seconds) {
    progress(phase_name(phase) + " the parameters");
    TuneOptions tune_options;
    tune_options.max_points = options.tune_max;
    if (phase == RunPhase::PreTune) {
        tune_options.shard = options.tune_shard;
        tune_options.shards = options.tune_shards;
    }
    tune_options.rule = options.acceptance;
    tune_options.parsimony_k = options.minimise_options.k;
    tune_options.deadline = budget.deadline(phase);
    budget.mark();
    TuneResult result = tune(from, grammar, evaluator, tune_options, rng);
    budget.charge(seconds);
    if (const std::string over = budget.overran(phase, tune_options.deadline, "a batch of points cannot be interrupted");
        !over.empty())
        result.note += "; " + over;
    return result;
}

void EvolveRun::save() {
    record.wall_seconds = budget.elapsed();
    state.rng_state = rng.save();
    state.strategy_state = strategy ? strategy->save_state() : std::string();
    files_->save(state);
}

void EvolveRun::write_best(const Genome& genome) const {
    write_file_atomically(best_genome_file(out_dir), genome_to_text(genome) + "\n");
    write_file_atomically(best_cu_file(out_dir), apply_genome(genome, grammar).source);
}

void EvolveRun::write_outputs() const {
    write_file_atomically(run_xml_file(out_dir), run_record_document(record));
    write_best(parse_genome(record.final_genome));
}

}  // namespace gi
