#pragma once
// The counters of the cuda evaluator's parts (the builder, the variant runs, the worker in use,
// NVRTC's processes), apart from the parts: CudaEvaluatorStats holds them all, and whoever reads
// them (reports, cuda-bench, tests) need not parse the compilers' and the worker's headers.
#include <string>

namespace gi {

struct RunVerdict;  // cuda/cuda_classify.hpp

struct NvrtcProcessStats {
    long started = 0;   // processes started
    long lost = 0;      // of them, killed or crashed on a variant
    long launcher_lost = 0;  // of them, lost with their compile launcher (its node, its connection): the compile ran again
};

// The builder's counters (CudaEvaluatorStats shows them).
struct BuildStats {
    long compiled = 0;          // compiles actually run (cache misses)
    long cache_hits = 0;
    long guard_compiled = 0;    // of `compiled`, the separate loop-guarded builds
    long paired_builds = 0;     // variants built with their guarded copy in the same module
    long paired_fallbacks = 0;  // paired compiles that failed, then compiled separately
    long unguarded = 0;         // variants whose guarded build failed to compile (checked unguarded)
    long built_ahead = 0;       // variants whose builds submit_ahead() had started (the gate's guess)
    long ahead_unused = 0;      // variants built ahead that were never asked for (a wrong guess)
    double compile_cpu_ms = 0;  // sum of compile times (over all threads)
    std::string compiler;       // the run's: "nvrtc", "nvrtc (device side)", "nvcc"
    std::string guard_options;  // the guarded builds' extra options (e.g. "-Ofc=mid"), "" for none
    NvrtcProcessStats nvrtc_processes;  // NVRTC's processes (none when it compiles in process)
};

struct VariantRunStats {
    double run_ms = 0;            // wall time of worker requests for variants (GPU work + transfers)
    double timeout_ms = 0;        // of which requests of variants that timed out (their allowance)
    long timeouts = 0;            // variants killed at their allowance (the hard timeout)
    long loop_overruns = 0;       // variants the loop guard stopped (Timeout too, but no restart)
    long out_of_bounds = 0;       // variants the shared-memory guard stopped (Crash, no restart)
    long corrupting = 0;          // variants that changed the worker's copies of a case (Crash, restart)
    long unguarded = 0;           // variants whose guarded build the worker could not use
    long staged_runs = 0;         // variant requests whose reply gave per-stage wall times:
    double stage_load_ms = 0;     //   module load(s)
    double stage_check_ms = 0;    //   check run, restoring the case included
    double stage_compare_ms = 0;  //   output download and comparison
    long compared_on_gpu = 0;     //   output buffers found equal to the original's on the GPU (not downloaded)
    long compared_on_host = 0;    //   output buffers downloaded and compared on the host
    long integrity_on_gpu = 0;    //   the worker's own buffers found intact on the GPU after a run,
    long integrity_on_host = 0;   //   and those read back to the host to check them
    double stage_timed_ms = 0;    //   warm-ups and timed repetitions
    double stage_integrity_ms = 0; //  checking the worker's copies of the case(s) afterwards
    double stage_worker_ms = 0;   //   the worker's whole time on them
    double stage_load_plain_ms = 0, stage_load_find_ms = 0, stage_load_guard_ms = 0;  // the load stage's parts
    double stage_unload_ms = 0;   //   the worker's unloading of earlier modules between them (when idle)
    double stage_request_ms = 0;  //   the parent's wall time of those same requests (pipes, payload)
    long staged_beside_exiting = 0;     // of staged_runs, those sent while a killed worker was still exiting,
    double beside_exiting_load_ms = 0;  //   their module loads,
    double beside_exiting_unload_ms = 0; //  their worker's unloading before them,
    double beside_exiting_timed_ms = 0; //   and their timed repetitions

    // Counts a variant's classified reply: its guard stops and, when it reported them, its stages
    // (`request_ms`: the parent's wall time of the request; `beside_exiting`: sent while a killed
    // worker was still exiting).
    void add(const RunVerdict& v, double request_ms, bool beside_exiting);
};

struct CaseWorkerStats {
    long worker_restarts = 0;
    long cold_starts = 0;            // replacements with no spare at all
    long case_loads = 0;             // cases loaded into the worker in use when it needed them (not ahead, by a spare)
    long references_loaded = 0;      // workers that took the original's outputs from the hand-over file
    long references_rejected = 0;    // hand-over files a worker found damaged or foreign (then recomputed)
    long references_recomputed = 0;  // replacements that had to run the original themselves
    double restart_ms = 0;           // wall time replacing workers a variant killed, until the next can run
    double original_ms = 0;          // wall time of the original's runs at each batch's start (and on new cases)
    double reap_wait_ms = 0;         // of which waiting for killed workers to exit before timing it
    double original_load_ms = 0;     // of which readying a worker with the batch's case (a replacement, a case load)
    long killed_reaped = 0;          // killed workers reaped so far (this process), and their mean
    double killed_exit_ms = 0;       //   time from the kill until they exited
    long launcher_losses = 0;        // workers lost with their launcher (--worker-launcher), replaced and their request re-run
    long cases_sent = 0;             // cases sent through the protocol to a worker whose node does not see them
};

}  // namespace gi
