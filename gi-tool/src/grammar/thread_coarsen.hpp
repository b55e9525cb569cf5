#pragma once
// The thread-coarsening transformation (coarsen_<file>_<line>, grammar/transforms.hpp) on a piece of
// kernel text: a one-dimensional kernel whose body is
//     int i = blockIdx.x * blockDim.x + threadIdx.x;
//     if (i < n) { ... }            (or: if (i >= n) return; ...)
// runs the body K times a thread, for the K blocks (blockIdx.x * K + k) of the original launch,
// while the grid is divided by K: in the evaluator (CaseKernel::geometry_of) and in the kernel
// file's own host function that computes the grid (`dim3 x_grid(...) { return dim3(X ...); }`), so
// the consumer's build launches the fewer blocks too. The grammar checks the original with these
// before it offers the site, the variant stage checks the text edits left before it rewrites it.
#include <optional>
#include <string>
#include <string_view>

namespace gi {

// A kernel body's parts the coarsened body is made of.
struct CoarsenPlan {
    std::string declaration;  // "int i": the index's type and name
    std::size_t rest = 0;     // where the body after the index's declaration starts
};

// The plan for a kernel's body (the text inside its braces), or nullopt with `why` set. The index
// declaration comes first, initialised to blockIdx.x * blockDim.x + threadIdx.x (either product
// order, either sum order); the statement after it is the bounds check, `if (i < X) S` (nothing
// after S, no else) or `if (i >= X) return;` (which ends the later iterations too: their i is
// larger); the rest reads neither threadIdx, blockIdx nor gridDim, declares no __shared__ or static
// local, calls no function but the pure math ones (no barrier, atomic or helper that could read
// the thread's position), has no other return and no break, continue or goto, never writes i, and
// assigns no name it does not declare itself (a parameter changed by one iteration would
// reach the next). Each iteration is then one original thread, run in turn: a schedule the
// original allowed, since its threads shared nothing they synchronised on.
std::optional<CoarsenPlan> coarsen_plan(std::string_view body, std::string& why);

// The body as a loop of `factor` iterations, `counter` counting them, the index computed for block
// blockIdx.x * factor + counter. Call only where coarsen_plan gave `plan`.
std::string coarsened_body(std::string_view body, const CoarsenPlan& plan, int factor, const std::string& counter);

// The grid's x expression of the host function, divided by `factor` rounding up.
std::string coarsened_grid(std::string_view x_expression, int factor);

}  // namespace gi
