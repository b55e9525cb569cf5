#pragma once
// Loop-overrun protection for the cuda evaluator's check run (Langdon's loop guard, seed 000
// 8.14.5.1, with a deadline instead of a per-thread counter): every loop condition of a variant
// gets `&& gi_loop_ok()`, which turns false once the GPU's %globaltimer is past a deadline the
// worker writes into __constant__ memory before the launch. A variant whose edit broke a loop's
// termination then ends by itself, flags gi_loop_overrun, and costs no worker restart.
//
// A deadline, not a counter: no per-thread state can be declared in an arbitrary loop's header,
// and a constant-cache load plus a special-register read is cheap enough that a correct variant's
// guarded build stays within its allowance. The guarded build only checks; it is never timed
// (the call in the condition blocks unrolling).
#include <string>
#include <vector>

namespace gi {

struct LoopGuardResult {
    std::string source;                  // the preamble, then the input with its loops guarded
    int guarded = 0;                     // loop conditions extended
    int barriers = 0;                    // __syncthreads() calls guarded (guard_hangs only)
    int shared_accesses = 0;             // __shared__ array subscripts checked (guard_hangs only)
    std::vector<std::string> unguarded;  // "variant.cu:12: ..." for each loop left as it was, and why
    // Is there a guarded build to make?
    bool any() const { return guarded > 0 || barriers > 0 || shared_accesses > 0; }
};

// Pure. `name` is used in the messages of `unguarded`. Skips comments, string and character
// literals, identifiers that merely contain `for`/`while`, and range-for; a loop whose header is
// malformed (unbalanced brackets) is left unguarded and named, never rewritten into broken code.
// Inserts no newlines, so loops in multi-line #define bodies stay valid, and the preamble ends
// with `#line 1` so compiler messages keep the kernel's line numbers.
LoopGuardResult guard_loops(const std::string& source, const std::string& name = "variant.cu");

// The text guard_loops puts before the source (for tests and documentation).
const std::string& loop_guard_preamble();

// Symbols the worker looks up in a guarded module.
inline constexpr const char* kLoopDeadlineSymbol = "gi_loop_deadline_ns";  // __constant__ u64, 0 = none
inline constexpr const char* kLoopOverrunSymbol = "gi_loop_overrun";       // __device__ u32, 1 = a loop stopped,
                                                                            // 2 = a barrier gave up, 3 = a split
                                                                            // warp, 4 = a shared array's bounds;
                                                                            // the largest cause seen wins
inline constexpr const char* kLoopClockKernel = "gi_loop_clock";           // extern "C" kernel(u64* now)

}  // namespace gi
