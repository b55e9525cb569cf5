#pragma once
// Runs the original and the variants on a case through the cuda evaluator's worker
// (cuda/case_worker.hpp): builds each run request (guard budget, batch of launches, poisoned
// outputs), waits for its replies stage by stage so a hung kernel is killed at its own deadline,
// classifies the reply and counts where the time went.
#include <chrono>
#include <deque>
#include <map>
#include <optional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/case_set.hpp"
#include "cuda/case_worker.hpp"
#include "cuda/cuda_classify.hpp"
#include "cuda/first_runs_ahead.hpp"
#include "evaluate/evaluator.hpp"
#include "cuda/part_stats.hpp"
#include "cuda/reference_folder.hpp"
#include "cuda/variant_builder.hpp"
#include "genome/genome.hpp"
#include "worker/run_request.hpp"

namespace gi {

// Launches per timed repetition for a kernel whose median is `median_ms`: enough for about a
// millisecond a repetition below `below_ms`, at most 64; 1 from `below_ms` up (or when it is 0).
int launches_per_time_for(double median_ms, double below_ms);


class CaseRunner {
public:
    // All outlive the runner. `original` is the original's plain build, set by set_original()
    // before the first run.
    CaseRunner(const CudaEvaluatorOptions& options, const CaseKernel& kernel, std::vector<CaseSlot>& slots, CaseWorker& worker)
        : options_(options), kernel_(kernel), slots_(slots), worker_(worker) {}

    // The original's build and the folder its reference outputs are handed over through.
    void set_original(std::shared_ptr<const DeviceCompileResult> original, const ReferenceFolder* references) {
        original_ = std::move(original);
        references_ = references;
    }

    // Makes the worker ready to judge variants on `index`: alive, case loaded, reference outputs
    // present (handed over, or the original run here when they could not be).
    void ready_for(int index);
    // The original's first runs on every case not yet run, in `processes` extra workers at once
    // (cuda/first_runs_ahead.hpp), their outputs handed over; a no-op without a hand-over folder,
    // with a worker launcher, or for fewer than three cases. take_first_run_ahead(index) waits for
    // case `index`'s and, when it ran, records what it found as the worker's own first run would;
    // end_first_runs_ahead() stops those not taken. Call all three from the evaluator's thread.
    // A held-out case's `reruns` oracle replays (the original once more as variants are run) are
    // made there too, so the evaluator's worker loads it only for validation; take_rerun_ahead()
    // hands them out in order (nullopt when none is left: the evaluator's worker replays it).
    void start_first_runs_ahead(int processes, int reruns);
    void take_first_run_ahead(int index);
    std::optional<RunVerdict> take_rerun_ahead(int index);
    std::size_t reruns_ahead(int index) const;
    void end_first_runs_ahead();
    // Establishes the original's reference on a case (once per worker, unless handed over) and
    // returns its timing (`time`; empty otherwise). The caller accounts for the time.
    Timing run_original(int index, bool time);
    // The original once more on a loaded, referenced case, as a variant is run (the oracle gate).
    RunVerdict rerun_original(int index);
    // One variant on one case (readied first). A variant whose guard stopped it while a killed
    // worker was still exiting runs once more after that worker is gone: the killed worker's hung
    // kernel can hold the GPU until its context is torn down, and a correct variant's guarded
    // barrier then gave up at its deadline (seen on the H100).
    RunVerdict run_variant(int index, const Genome& genome, const VariantBuild& build, bool time);

    const VariantRunStats& stats() const { return stats_; }

    // The original's first runs on cases (reference outputs made here, not handed over), by part
    // as the worker reports them: where a large case set's cold start goes (issue 44).
    struct FirstRunTimes {
        double probe_ms = 0;    // finding what the kernel writes (write-set probes)
        double compare_ms = 0;  // comparing its outputs with the recorded ones
        double worker_ms = 0;   // the worker's whole time on them (the plain run, references written)
        double request_ms = 0;  // the parent's wall time of those requests
        long runs = 0;
        int ahead_processes = 0;  // of them, made ahead in this many workers at once,
        long ahead_runs = 0;      //   so many,
        long ahead_reruns = 0;    //   and of the oracle's replays, so many (held-out cases),
        double ahead_wall_ms = 0; //   in this wall time (all the workers, until the last ended)
        std::string ahead_failure;  // the first that failed there (run again in the worker)
    };
    const FirstRunTimes& first_run_times() const { return first_runs_; }

private:
    worker::RunSpec run_spec(int index, const std::string& role, const DeviceCompileResult& code, const ResolvedGeometry& g,
                             bool time, const VariantBuild* build = nullptr, const std::string& kernel = "") const;
    worker::Message run_variant_request(int index, const worker::Message& m);
    // How long a run request on case `index` may wait after "started" (its check launch) and then
    // after "checked" (the comparison and timed launches).
    std::pair<std::chrono::milliseconds, std::chrono::milliseconds> run_waits(int index) const;
    // Where the original's outputs on case `index` are handed over (the references folder's).
    std::string reference_path(int index) const;
    worker::Message request_original(const worker::RunSpec& spec);
    // How long to wait for an original's run once its worker said "probing" (`probing`'s fields).
    std::chrono::milliseconds probe_allowance(const worker::RunSpec& spec, const worker::Message& probing) const;
    // Records an original's first run on `index` (its reply `reply`, classified `v`, the request's
    // wall time `request_ms`): the oracle's fields, write sets, reference outputs handed over.
    void note_first_run(int index, const worker::Message& reply, const RunVerdict& v, double request_ms, bool hand_over);
    double launch_allowance_ms(double original_ms) const;
    RunVerdict run_variant_once(int index, const Genome& genome, const VariantBuild& build, bool time);
    RunVerdict judge_lost_variant(int index, const worker::WorkerFailure& failure, int losses);
    // The original once more on case `index`, which the worker holds (ready_for); throws worker::WorkerFailure.
    RunVerdict rerun_once(int index);

    const CudaEvaluatorOptions& options_;
    const CaseKernel& kernel_;
    std::vector<CaseSlot>& slots_;
    CaseWorker& worker_;
    std::shared_ptr<const DeviceCompileResult> original_;
    const ReferenceFolder* references_ = nullptr;
    VariantRunStats stats_;
    FirstRunTimes first_runs_;
    std::unique_ptr<FirstRunsAhead> ahead_;
    std::map<int, std::deque<RunVerdict>> ahead_reruns_;
};

}  // namespace gi
