#pragma once
// The warp-shuffle transformation (shfl_<file>_<line>, grammar/transforms.hpp) on a piece of kernel
// text: a shared-memory tree reduction
//     for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }
// keeps its shared-memory steps down to s > 32, and the first warp does the last six steps in
// registers: sdata[tid] + sdata[tid + 32], then __shfl_down_sync by 16, 8, 4, 2, 1, and thread 0
// writes the result to sdata[0]. Lane t then adds the same two values step for step as thread t
// did (a + b is b + a exactly), so sdata[0] is the original's bit for bit, and the other elements,
// which the warp no longer writes, are read by nothing after the loop (a premise).
// The grammar checks the original with these before it offers the site, the variant stage checks
// the text edits left before it rewrites it, as for the other transformations.
#include <optional>
#include <string>
#include <string_view>

namespace gi {

// A tree reduction loop as its text spells it.
struct TreeReduction {
    std::string prefix;     // preprocessor lines before the `for` (an unroll pragma), each ending in '\n'
    std::string loop;       // the for statement from `for` on, as written
    std::size_t cond_begin = 0, cond_end = 0;  // the condition's bytes in `loop`
    std::string variable;   // s
    std::string start;      // the value s starts at ("blockDim.x / 2"), block-uniform
    std::string array;      // sdata: a __shared__ array of the function, or extern __shared__
    std::string thread;     // how the body names threadIdx.x: "tid" or "threadIdx.x"
    std::string combine;    // "+", "*", or the function: "fmaxf", "fminf", "max", "min", "fmax", "fmin"
    bool barrier_first = false;  // the loop's body is { __syncthreads(); if (...) ...; }
};

// The reduction `loop` (a for statement, unroll pragmas before it allowed) performs, given the
// text of its function's body before and after it; nullopt with `why` set when it is not one the
// warp can finish:
//  - the header is `V = E` (declared there, or else V not read after the loop), `V > 0` (or
//    `V >= 1`, `0 < V`, `V != 0`, `V`), `V >>= 1` (or `V /= 2`, `V = V >> 1`, `V = V / 2`); E
//    reads only numbers, blockDim/gridDim and names the function never writes (parameters,
//    macros, template arguments: the same in every thread, so a test of it is block-uniform);
//  - the body is the barrier and `if (T < V) A[T] op= A[T + V];` (or `A[T] = A[T] + A[T + V]`,
//    `A[T] = fmaxf(A[T], A[T + V])`, either operand order), in either order, nothing else;
//  - T is threadIdx.x or a local initialised to it and never written;
//  - A is a __shared__ array of float, double, int, unsigned, long long or unsigned long long
//    declared once in the function before the loop, used only as A[...] (no alias), the only
//    extern __shared__ array of the function if it is one;
//  - after the loop A is used only as A[0] (the other elements differ) and not its address.
std::optional<TreeReduction> tree_reduction(std::string_view before, std::string_view loop, std::string_view after,
                                            std::string& why);

// The loop's replacement: when the start value is a power of two of at least 32 and blockDim.x a
// multiple of 32 (so `T < 32` selects whole warps, each with every lane), the shared-memory steps
// down to V > 32 and the warp's six; otherwise the loop as written. The test reads only
// block-uniform values, so every thread of a block takes the same branch to its barriers; where
// the start is a constant the compiler drops the branch it cannot take. `value_name` names the
// warp's register.
std::string warp_reduce_text(const TreeReduction& reduction, const std::string& value_name);

}  // namespace gi
