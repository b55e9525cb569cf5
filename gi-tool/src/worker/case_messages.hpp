#pragma once
// gi-worker's other requests and replies, each declared once for both ends of the pipe (the run
// request and its result: worker/run_request.hpp, worker/run_result.hpp). Fields a message leaves
// out read as their defaults.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "worker/protocol.hpp"

namespace gi::worker {

// "hello" (answered with Ready) and "quit" (not answered: the worker exits), requests without fields.
Message hello_message();
Message quit_message();

// "error": the worker could not do what was asked (its own failure around a request, not a
// variant's verdict); fatal when its CUDA context is unusable and it exits after this reply.
struct ErrorReply {
    std::string message;
    bool fatal = false;
    bool operator==(const ErrorReply&) const = default;
};
Message to_message(const ErrorReply& error);
// The "message" and "fatal" fields of any reply ("" and false where it has none).
ErrorReply error_reply_from(const Message& message);

// "unload-case": forget the case in a slot; answered "case-unloaded" with the same slot.
struct UnloadCase {
    int slot = -1;
    bool operator==(const UnloadCase&) const = default;
};
Message to_message(const UnloadCase& unload);
UnloadCase unload_case_from(const Message& message);  // throws gi::Error unless an "unload-case" with a well-formed slot
Message case_unloaded_message(int slot);

// "ready", the reply to "hello": the GPU the worker opened.
struct Ready {
    std::string device;
    int compute_capability = 0;     // 90 for sm_90
    int sms = 0;
    std::uint64_t l2_bytes = 0, memory_bytes = 0;
    int driver = 0;                 // cuDriverGetVersion's
    // The GPUs the worker's driver sees (cuDeviceGetCount) and the one it opened (GI_WORKER_DEVICE):
    // what `--gpus all` counts. 0 from a worker too old to say.
    int devices = 0;
    int ordinal = 0;
    bool operator==(const Ready&) const = default;
};
Message to_message(const Ready& ready);
Ready ready_from(const Message& message);  // throws gi::Error unless a "ready" with well-formed numbers

// "load-case": the recorded case to keep in a slot, each output's tolerance, and the original's
// outputs handed over by another worker (reference_file, with its checksum and the original
// module's) when there are any.
struct LoadCase {
    int slot = -1;
    std::string path;
    bool verify = true;                    // check the case's blobs against their checksums
    std::vector<std::string> tolerances;   // per buffer, as text ("exact", "abs=1e-3")
    std::string reference_file, reference_sha256, original_sha256;
    // The case's content hash (worker/case_store.hpp), sent to workers started through a launcher:
    // one whose node does not see `path` reads the case from its store, or answers "case-missing".
    std::string sha256;
    bool operator==(const LoadCase&) const = default;
};
Message to_message(const LoadCase& load);
LoadCase load_case_from(const Message& message);

// "case-loaded": what the worker holds of the case, and what became of a handed-over reference.
struct CaseLoaded {
    int slot = -1;
    int copies = 0;                  // working copies on the GPU
    std::uint64_t device_bytes = 0;
    std::string device_compare;      // "on", or "off: why" (comparisons on the host)
    std::string reference;           // "" (none offered), "loaded" or "rejected"
    std::string reference_error;     // why it was rejected
    std::string poisonable;          // with a loaded reference: its write sets (compare/write_set.hpp)
    bool operator==(const CaseLoaded&) const = default;
};
Message to_message(const CaseLoaded& loaded);
CaseLoaded case_loaded_from(const Message& message);

// "check-variants": a sanitizer session's request to run a list of compiled variants
// (gi-worker --once --variants's format) on a case, and its reply "checked".
// Runs the variants of `variants_file` on the case in turn; with no file, only opens the case (a
// sanitizer session started ahead of its first check).
// How many cases a check-variants worker keeps open at once (memory allowing): a recording of
// several launches is as many gate cases, and the gate's prescreen runs each would-be parent on
// every one. The gate's sessions mirror it to hand a check to one that holds its case.
inline constexpr std::size_t kCheckCasesKept = 8;

struct CheckVariants {
    std::string case_path, kernel, variants_file;
    // Guard zones of this many bytes before and after each of the case's buffers (0: none): a
    // variant that writes into them is reported in Checked::outside (the gate's first check, run
    // without compute-sanitizer).
    std::uint64_t guard_bytes = 0;
    // Up to this many of the variants run at once, each on a stream and a copy of the case of its
    // own (1: one after another). For racecheck and synccheck, whose instrumented launches of a
    // few blocks leave the GPU nearly idle (issue 19: 8 launches 7.9 s one after another, 1.0 s
    // at once, under racecheck on an H200). A report then names no variant: the caller checks
    // them again one at a time. Not with guard zones, which are read after each variant.
    std::uint64_t side_by_side = 1;
    // With guard zones: each buffer ends where the mapped memory ends, at an unmapped page, so a
    // variant that reads or writes past a buffer's end faults at native speed (a guard page);
    // only the zone before the buffer is kept. memcheck took 5-8 s a variant to report such reads
    // from many threads (bench/results/2026-11-29-h200-s19-rejudge-gate-made-check.md).
    bool guard_pages = false;
    bool operator==(const CheckVariants&) const = default;
};
Message to_message(const CheckVariants& check);
CheckVariants check_variants_from(const Message& message);

struct Checked {
    std::uint64_t ran = 0;  // variants run
    std::string error;      // why it stopped early ("" when all ran)
    // Where the request's time went in the worker, in ms: loading the case (only when it changed),
    // loading the variants' modules (instrumented by the sanitizer as they load), their launches
    // (restores included) and unloads, and the final synchronisation.
    double case_ms = 0, load_ms = 0, launch_ms = 0, unload_ms = 0, sync_ms = 0;
    std::string outside;    // with guard zones: where the variant it stopped at wrote outside its buffers
    bool kept = false;      // after such a write: the worker's own copies were intact, it serves on
    std::uint64_t case_bytes = 0;  // the GPU memory the request's case takes in the worker (its copies)
    bool operator==(const Checked&) const = default;
};
Message to_message(const Checked& checked);
Checked checked_from(const Message& message);

}  // namespace gi::worker
