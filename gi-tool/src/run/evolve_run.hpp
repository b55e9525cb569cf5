#pragma once
// What the phases of one evolve() run share (run/evolve_phases.hpp): its inputs, its state as the
// checkpoint keeps it, the generator, the strategy, the time accounting and the files of its --out
// folder. Made as the run opens its folder: a new run's state, or a resumed run's from its
// checkpoint, with the strategy restored.
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/variant_checker.hpp"
#include "run/checkpoint.hpp"
#include "run/evolve.hpp"
#include "run/run_budget.hpp"
#include "run/run_files.hpp"
#include "tune/tune.hpp"
#include "util/rng.hpp"

namespace gi {

struct EvolveRun {
    // Opens `out_dir` as `mode` says (a new run removes the files of one there; a resumed one reads
    // its checkpoint, which must have the same fingerprint) and starts the time accounting; the
    // checker, if any, gets ready for the gate. Throws gi::UsageError or gi::Error naming the file.
    // `options` must have passed check_evolve_options.
    EvolveRun(const Grammar& grammar, Evaluator& evaluator, const EvolveOptions& options,
              const std::filesystem::path& out_dir, OutMode mode, const EvolveHooks& hooks);
    EvolveRun(const EvolveRun&) = delete;
    EvolveRun& operator=(const EvolveRun&) = delete;

    const Grammar& grammar;
    Evaluator& evaluator;
    const EvolveOptions& options;
    const EvolveHooks& hooks;
    const std::filesystem::path out_dir;
    VariantChecker* const checker;  // the evaluator's gate and final checks; nullptr when it has none
    const std::function<void(const std::string&)> progress;  // hooks.progress, or nothing
    Checkpoint state;
    RunRecord& record;  // state.record
    Rng rng;
    RunBudget budget;
    std::unique_ptr<Strategy> strategy;

    // The strategy, searching from `base`.
    void make_strategy(const Genome& base);
    // The search's evaluation of a generation's genomes (EvolveHooks::evaluate_batch, else
    // evaluate_genomes); tuning and minimisation evaluate through `evaluator` itself.
    ScoredBatch evaluate_batch(const std::vector<Genome>& genomes, int case_index) const;
    // Pre- or post-tuning (`phase`: RunPhase::PreTune or PostTune) from `from`, stopped by the
    // phase's deadline, its wall time added to `seconds` and an overrun to its note. Only a
    // pre-tuning sweep is split into shards (EvolveOptions::tune_shard).
    TuneResult tune_parameters(RunPhase phase, const Genome& from, double& seconds);

    // The checkpoint, and run.xml when due (run/run_files.hpp).
    void save();
    // best.genome and best.cu: `genome` and the kernel it gives.
    void write_best(const Genome& genome) const;
    // The finished run's run.xml, best.genome and best.cu (its final genome).
    void write_outputs() const;

private:
    std::filesystem::path checkpoint_file() const;
    void open_new(OutMode mode, const Fingerprint& fingerprint);
    void open_resumed(const Fingerprint& fingerprint);

    const EditDrawer draw_;
    std::optional<RunFiles> files_;  // once the state is known: a resumed run's log continues
};

}  // namespace gi
