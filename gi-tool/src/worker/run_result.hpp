#pragma once
// The reply to a run request ("result"), declared once for both ends of the pipe: gi-worker fills a
// RunResult and sends to_message(it); the evaluator reads it back with run_result_from(). Fields a
// reply leaves out read as their defaults (the short replies of a module that does not load, older
// workers), so adding a field needs no change on the other side to keep working.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "worker/protocol.hpp"

namespace gi::worker {

// Wall milliseconds of a request's stages in the worker, when it got as far as running the kernel.
struct RunStages {
    double load_ms = 0;       // loading the module(s)
    double check_ms = 0;      // restoring the poisoned case, arming the guard, the check launch
    double compare_ms = 0;    // comparing outputs with the reference (on the GPU first)
    double timed_ms = 0;      // warm-ups and timed repetitions
    double integrity_ms = 0;  // checking the worker's own copies of the case(s) afterwards
    double worker_ms = 0;     // the worker's whole time on the request
    double unload_ms = 0;     // unloading earlier variants' modules since the worker's last reply
    // The load stage's parts: the plain module, finding its kernel, the guarded module and its symbols.
    double load_plain_ms = 0, load_find_ms = 0, load_guard_ms = 0;
    bool operator==(const RunStages&) const = default;
};

struct RunResult {
    // ok, load-error, no-kernel, launch-error, fault, loop-overrun, corrupted
    std::string outcome = "ok";
    std::string cuda_error;       // CUDA_ERROR_... name, when a CUDA call failed
    bool sticky = false;          // the context is unusable: the worker exits after this reply
    std::string detail;
    std::uint64_t elements = 0, mismatches = 0, unwritten = 0, non_finite = 0;
    double worst = 0, error = 0;  // worst |difference| and mean penalty (compare/compare.hpp)
    bool hard_failure = false;    // unwritten or new non-finite outputs
    std::vector<double> times_ms; // the timed repetitions, each the mean of launches_per_time launches
    int launches_per_time = 1;
    std::string poisonable;       // the original's first run: the write sets learnt (compare/write_set.hpp)
    std::string loop_guard;       // none, used, or "unusable: why"
    std::optional<RunStages> stages;
    // Output buffers found equal to the original's on the GPU and those compared on the host; the
    // worker's own buffers its integrity check found intact on the GPU and those it read back.
    long compared_on_gpu = 0, compared_on_host = 0, integrity_on_gpu = 0, integrity_on_host = 0;
    // The original's first run with `reference-out`: the file its outputs were handed over in, or why not.
    std::string reference_file, reference_sha256, reference_error;
    bool operator==(const RunResult&) const = default;
};

Message to_message(const RunResult& result);
// Throws gi::Error naming the field when a number or the timings are malformed, or when `message`
// is not a "result".
RunResult run_result_from(const Message& message);

}  // namespace gi::worker
