#pragma once
// Barrier-deadlock protection for the cuda evaluator's check run, the loop guard's twin (issue 3).
// An edit that copies or moves a `__syncthreads()` into code that not every thread reaches (a
// branch, a loop some threads leave early) deadlocks the block: no hardware barrier can be given
// up on, so without this guard such a variant costs a killed worker, a torn-down context (about
// 230 ms of driver work that slows every other process's module loads) and a replacement worker.
//
// In the guarded build every plain `__syncthreads()` becomes gi_guarded_syncthreads(SITE), a
// barrier in shared memory that gives up once the loop guard's deadline has passed, sets
// gi_loop_overrun to kBarrierOverrun (or to a loop's overrun when the barrier was first reached
// after the deadline: a late block, not a deadlock) and lets the thread go on, so the kernel ends
// by itself.
// Threads that leave a kernel count as arrived, as they do for the hardware barrier (PTX `exit`
// releases a barrier the exiting threads were holding up): each kernel body starts with
// gi_barrier_enter() and every way out of it (`return;` and the closing brace) passes
// gi_thread_exit().
//
// A hardware __syncthreads() is `bar.sync` in its .aligned form: every thread of a warp must
// execute the same barrier instruction. A warp split between two barrier sites (a barrier copied
// into a branch some of its lanes take) is undefined and in practice hangs, though a barrier
// that only counts threads would let it through. So each site has a number, and a warp whose
// threads arrive at different sites in one phase sets kBarrierSplitWarp. The guarded build
// only checks; the plain build, with hardware barriers, is what is timed, and its outputs are
// compared too.
//
// Left as they are (a deadlock there still costs a worker): barriers in a file with no kernel
// defined in it (the kernel is what sets the barrier up), barriers inside #define bodies,
// __syncthreads_count/_and/_or, bar.sync in inline assembly, cooperative-groups syncs, and
// `return expr;` of a void expression. A `return;` inside a lambda in a kernel would be counted
// as the thread leaving; kernels with such lambdas should not use barriers in the lambda's caller.
#include <string>

namespace gi {

struct BarrierGuardResult {
    std::string source;  // the input with its barriers guarded (no lines added: line numbers hold)
    int barriers = 0;    // __syncthreads() calls replaced; 0 = `source` is the input unchanged
};

// Pure. The functions it calls are in loop_guard_preamble(), which must come before `source`.
// Text that cannot be scanned (an unterminated comment or literal, unbalanced brackets) is
// returned unchanged: the plain compile reports it better.
BarrierGuardResult guard_barriers(const std::string& source, const std::string& name = "variant.cu");

// The values gi_loop_overrun takes when a guarded barrier gave up waiting, and when it found a
// warp split between barrier sites (a loop that stopped sets 1). The flag keeps the largest value
// set in a launch, so a split warp is reported over the hangs it causes.
inline constexpr unsigned int kBarrierOverrun = 2;
inline constexpr unsigned int kBarrierSplitWarp = 3;

}  // namespace gi
