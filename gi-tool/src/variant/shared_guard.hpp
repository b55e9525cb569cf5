#pragma once
// Shared-memory bounds protection for the cuda evaluator's check run, beside the loop and barrier
// guards (issue 19). An edit that lets an index grow without bound (row_filter's `k` or `i` after a
// changed loop step) reads a `__shared__` tile past its end: on the GPU that is an exception that
// ruins the worker's context, which the driver reports a few hundred milliseconds later, after the
// worker has been killed as hung. Each such variant cost a worker and slowed the next worker's
// module load from about 2 to 157 ms while the killed one was torn down
// (bench/results/2026-11-26-h200-guard.md).
//
// In the guarded build every full subscript of a `__shared__` array declared in the file,
// `tile[y][i + k]`, becomes `gi_shared_ix(tile, (y), (i + k))`: the element's offset in the whole
// array is checked against the array's size (for `extern __shared__ T s[]`, the launch's dynamic
// shared memory), and an access outside it sets gi_loop_overrun to kSharedOutOfBounds and goes to
// the array's first element instead, so the kernel ends by itself and the variant fails as a
// crash. Each index is still evaluated once. The array argument is the name the subscript uses,
// resolved by the compiler in the same scope, so an element of the array is never refused: a
// local array that shadows the name is checked against itself, a pointer not at all.
//
// Left as they are: subscripts inside #define bodies, partial subscripts (`tile[y]` used as a row
// pointer), `&tile[i]` (an address, maybe one past the end, not an access), arrays reached through
// a pointer (`float* row = tile[y];`), and names declared with different ranks in one file.
#include <string>
#include <vector>

namespace gi {

struct SharedGuardResult {
    std::string source;               // the input with its shared-array accesses checked (no lines added)
    int accesses = 0;                 // subscripts rewritten; 0 = `source` is the input unchanged
    std::vector<std::string> arrays;  // the names of the arrays guarded, in order of declaration
};

// Pure. The functions it calls are in loop_guard_preamble(), which must come before `source`.
// Text that cannot be scanned (an unterminated comment or literal, unbalanced brackets) is
// returned unchanged: the plain compile reports it better.
SharedGuardResult guard_shared_arrays(const std::string& source, const std::string& name = "variant.cu");

// The value gi_loop_overrun takes when a guarded access fell outside its shared array. The
// largest cause wins: an access outside an array is reported over the loops it kept running.
inline constexpr unsigned int kSharedOutOfBounds = 4;

}  // namespace gi
