#pragma once
// Staging a re-read global array through shared memory (stage_<file>_<line>=0|1,
// grammar/transforms.hpp) on a piece of kernel text: a one-dimensional stencil or convolution
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     ...
//     for (int k = -R; k <= R; ++k) {
//         int j = i + k;                        (or the read written in[i + k + C] directly)
//         if (j >= 0 && j < n) acc += w[k + R] * in[j];
//     }
// reads each element of `in` from 2R+1 threads. The variant loads the block's window
// in[blockIdx.x * blockDim.x + LO + C .. + blockDim.x + HI + C] into a __shared__ array once,
// cooperatively, at the top of the kernel's body (where every thread of the block stands, before
// any return, so the barrier after it cannot hang), bounds-checked against the same n as the
// loop's reads, and the loop reads the copy. Out-of-range elements are left unloaded: the loop's
// own bounds test, kept as written, never reads them. The tile's size is static: the loop's limits
// and the block size are compile-time constants (macros, constexpr, template parameters); a
// launch whose block is larger than that block size, or not one-dimensional, runs the loop as
// written (the test is block-uniform). The grammar checks the original with these before it
// offers the site, the variant stage checks the text edits left before it rewrites it.
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace gi {

// What the kernel's text outside its body says: which array may be staged, the names that are
// compile-time constants, the kernel's parameters, and its block size.
struct StageContext {
    std::string array;                 // a `const T*` parameter
    std::string element;               // T, as written ("float")
    std::string block;                 // the block size: a number or a constant name
    std::set<std::string> constants;   // #define'd, constexpr, static const and template parameter names
    std::set<std::string> parameters;  // the kernel's parameter names
};

// The loop's parts the staged text is made of.
struct StagePlan {
    std::string pragmas;  // preprocessor lines before the `for` (an unroll pragma), as written
    std::string loop;     // the `for` statement, as written
    std::string low;      // the counter's first value (LO), as written
    std::string high;     // its last value (HI): the bound, or (bound) - 1 for '<'
    std::string offset;   // C: the read is array[i + k + C] ("0" when there is none)
    std::string bound;    // n: the reads are guarded by (X >= 0 && X < n)
};

// The plan for the loop `loop` of a kernel body whose text before and after it are `before` and
// `after`, or nullopt with `why` set: the premise in the header's terms (the index
// i = blockIdx.x * blockDim.x + threadIdx.x declared once, signed, never written; the loop at the
// body's loop level, counting by one between constants; the array read only in the loop, as
// array[X] with X = i + k + C, under an if whose condition requires X >= 0 && X < n; no write
// through memory and no call before the loop or in it; array, n and the index's names never
// written).
std::optional<StagePlan> stage_plan(std::string_view before, std::string_view loop, std::string_view after,
                                    const StageContext& context, std::string& why);

// The declaration of the tile and its cooperative load with the barrier, for the top of the body.
std::string staged_prologue(const StagePlan& plan, const StageContext& context, const std::string& name);

// The loop reading the tile where the load ran, else as written.
std::string staged_loop(const StagePlan& plan, const StageContext& context, const std::string& name);

}  // namespace gi
