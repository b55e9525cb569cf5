#pragma once
// Turning what the GPU worker said (or how it died) into the evaluator's verdict for a variant.
// Pure functions, so every path is unit-tested without a GPU.
#include <string>

#include "evaluate/evaluator.hpp"
#include "worker/protocol.hpp"
#include "worker/worker_process.hpp"

namespace gi {

struct RunVerdict {
    EvalResult result;                 // status, error, detail (time filled by the caller)
    std::vector<double> times_ms;      // the timed repetitions, when it ran correctly
    std::uint64_t elements = 0, mismatches = 0;
    double worst_error = 0;
    bool restart_worker = false;       // the worker is gone or its context is unusable
    bool loop_overrun = false;         // the loop guard stopped the check run (status Timeout)
    bool out_of_bounds = false;        // the shared-memory guard kept an access inside its array (Crash, no restart)
    bool corrupting = false;           // it changed the worker's copies of a case (status Crash, restart)
    bool guard_unusable = false;       // a guarded build was sent but the check ran without it
    bool has_stages = false;           // the reply carried per-stage wall times:
    double load_ms = 0, check_ms = 0, compare_ms = 0, timed_ms = 0;
    double integrity_ms = 0;           // checking the worker's copies afterwards (0 from older workers)
    double worker_ms = 0;              // the worker's whole time on the request (0 from older workers)
    double load_plain_ms = 0, load_find_ms = 0, load_guard_ms = 0;  // the load stage's parts
    double unload_ms = 0;              // the worker's unloading of earlier variants' modules since its last reply
    long compared_on_gpu = 0;          // output buffers found equal to the original's on the GPU,
    long compared_on_host = 0;         //   and those copied to the host and compared there
    long integrity_on_gpu = 0;         // the worker's own buffers its integrity check found intact on the GPU,
    long integrity_on_host = 0;        //   and those it read back to the host
};

// A "result" or "error" reply to a variant's run request. Throws gi::Error for replies that mean
// the tool itself is misused (no case loaded, a malformed reply).
RunVerdict classify_run_reply(const worker::Message& reply);

// A run request that got no reply.
RunVerdict classify_worker_failure(const worker::WorkerFailure& failure);

// compute-sanitizer's verdict from its exit: 0 clean; `error_exit_code` errors found (report
// tail in the detail); anything else a crash of the variant (or of the tool).
EvalResult classify_sanitizer_exit(int exit_code, bool timed_out, int error_exit_code, const std::string& output,
                                   const std::string& tools);

// The lines of a compute-sanitizer report worth showing (the "=========" lines with errors),
// at most `max_lines`.
std::string sanitizer_report_excerpt(const std::string& output, int max_lines = 8);

// compute-sanitizer: `given` if set, else on PATH, else in /usr/local/cuda/bin; throws gi::Error
// saying how to get it.
std::string find_compute_sanitizer(const std::string& given);

// Number of __syncthreads barrier calls (also __syncwarp, cooperative sync) in source text.
int count_barriers(const std::string& source);

// Removing a barrier is the edit that makes races: a variant with fewer barriers than the
// original (`original_barriers`, count_barriers of its source) gets racecheck and synccheck in the
// sanitizer gate; the others memcheck alone.
bool needs_race_checks(const std::string& variant_source, int original_barriers);

}  // namespace gi
