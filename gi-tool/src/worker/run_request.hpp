#pragma once
// A run request ("run"), declared once for both ends of the pipe: the evaluator fills a RunSpec and
// sends to_message(it); gi-worker reads it with run_spec_from(). Its reply is worker/run_result.hpp.
#include <cstdint>
#include <optional>
#include <string>

#include "testcase/test_case.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {

struct RunSpec {
    int slot = -1;                   // the loaded case it runs on
    std::string role = "variant";    // original (the reference, then timing only), variant, rerun (the
                                     // original judged as a variant: the oracle gate's second replay)
    std::string kernel;              // the name the worker finds the kernel by (worker/kernel_name.hpp)
    std::optional<Dim3> grid, block; // the case's recorded launch when absent
    std::optional<unsigned> shared_bytes;
    int warmups = 2, repetitions = 10;
    // Launches per timed repetition, reported as their mean (short kernels); the worker uses 1 where
    // the case updates buffers or module variables in place. 1..kMaxLaunchesPerTime.
    int launches_per_time = 1;
    bool time = true;                // false: checked, not timed
    // The original's first run on a case: whether to learn each writable buffer's write set
    // (compare/write_set.hpp: which elements it writes, by runs on the buffer poisoned), also for
    // buffers the recorded launch did not change (probe_unchanged), or the write sets learnt before
    // (write_sets_text; the old "1,0,..." too); and where to hand its outputs over to other workers
    // ("" = nowhere).
    bool probe_poison = true;
    bool probe_unchanged = true;
    // Whether the worker says "probing" (the plain run's time, the probes' launches and bytes)
    // before it probes, so the parent can give the probes an allowance of their own; off, the reply
    // is the result alone, as for every other client of the protocol.
    bool announce_probe = false;
    std::string poisonable;
    std::string reference_out;
    // With a loop-guarded build: how long its loops may run after the launch (microseconds), and
    // whether it is paired (one module holding both builds, variant/paired_build.hpp) or rides in
    // front of the plain build in the payload (its first guard_bytes bytes).
    long long guard_budget_us = 0;
    bool guard_paired = false;
    std::uint64_t guard_bytes = 0;
    std::string payload;             // the module(s)
    bool operator==(const RunSpec&) const = default;
};

inline constexpr int kMaxLaunchesPerTime = 1000;

Message to_message(const RunSpec& spec);
// Throws gi::Error naming the field when one is malformed (a grid that is not X,Y,Z, a guard-bytes
// beyond the payload, guard-bytes with guard-paired), or when `message` is not a "run".
RunSpec run_spec_from(const Message& message);

// "X[,Y[,Z]]" with positive parts; throws gi::Error naming `field`.
Dim3 parse_dim3(const std::string& text, const std::string& field);

}  // namespace gi::worker
