#include "run/evolve.hpp"

#include <algorithm>

#include "grammar/shape_hash.hpp"
#include "run/evolve_phases.hpp"
#include "search/strategy_table.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

std::string flag(bool on) { return on ? "1" : "0"; }

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
    if (find_strategy(options.strategy) == nullptr)
        throw UsageError("--strategy: unknown strategy '" + options.strategy + "' (known: " + join(strategy_names(), ", ") +
                         ")");
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

// The driver: walks the phases (run/evolve_phases.hpp), each taking the run to the next and saving
// its checkpoint there; a resumed run starts at the phase its checkpoint names.
RunRecord evolve(const Grammar& grammar, Evaluator& evaluator, const EvolveOptions& options,
                 const std::filesystem::path& out_dir, OutMode mode, const EvolveHooks& hooks) {
    check_evolve_options(options);
    if (evaluator.case_count() < 1)
        throw Error("evaluator '" + evaluator.name() + "' has no training cases; record some test cases first");
    EvolveRun run(grammar, evaluator, options, out_dir, mode, hooks);
    for (const EvolvePhase& phase : kEvolvePhases)
        if (run.state.phase == phase.from) phase.run(run);
    if (run.state.phase != CheckpointPhase::Finished)
        throw Error("evolve: the run ended in phase '" + phase_word(run.state.phase) + "', not 'finished' (a bug)");
    run.write_outputs();
    return run.record;
}

}  // namespace gi
