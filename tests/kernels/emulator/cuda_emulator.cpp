#include "emulator/cuda_emulator.hpp"

#include <memory>
#include <string>
#include <vector>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

#if defined(__x86_64__)
// A context switch of our own: ucontext's swapcontext makes a system call (signal mask) on every
// switch, which made the emulated kernels ten times slower. Saves the callee-saved registers and
// the SSE/x87 control words on the old stack, stores its pointer in *save, and resumes `load`.
extern "C" void gi_emu_switch(void** save, void* load);
asm(R"(
    .text
    .globl gi_emu_switch
    .type gi_emu_switch,@function
gi_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size gi_emu_switch, .-gi_emu_switch
    .section .note.GNU-stack,"",@progbits
    .text
)");
#endif

namespace gi::emu {
namespace {

constexpr std::size_t kStackBytes = 256 * 1024;
constexpr unsigned kWarpSize = 32;

enum class FiberState { Ready, AtBlockBarrier, AtWarpBarrier, Done };

#if defined(__x86_64__)
struct Context {
    void* sp = nullptr;
};
#else
using Context = ucontext_t;
#endif

struct Fiber {
    Context context{};
    std::unique_ptr<char[]> stack;  // left uninitialised: only the pages a kernel touches are used
    uint3 index;
    FiberState state = FiberState::Ready;
};

struct Scheduler {
    Context main{};
    std::vector<Fiber> fibers;
    std::size_t current = 0;
    const std::function<void()>* body = nullptr;
};

Scheduler* active = nullptr;

void switch_to(Context& save, Context& load) {
#if defined(__x86_64__)
    gi_emu_switch(&save.sp, load.sp);
#else
    swapcontext(&save, &load);
#endif
}

void fiber_entry() {
    (*active->body)();
    Fiber& fiber = active->fibers[active->current];
    fiber.state = FiberState::Done;
    switch_to(fiber.context, active->main);  // never resumed
}

// Prepares a fiber so that switching to it starts fiber_entry on its own stack.
void start_context(Fiber& f, Scheduler& s) {
#if defined(__x86_64__)
    (void)s;
    auto top = reinterpret_cast<std::uintptr_t>(f.stack.get() + kStackBytes) & ~std::uintptr_t{15};
    auto* slot = reinterpret_cast<std::uint64_t*>(top);
    *--slot = 0;                                               // fiber_entry's (unused) return address
    *--slot = reinterpret_cast<std::uint64_t>(&fiber_entry);  // where gi_emu_switch's ret goes
    for (int r = 0; r < 6; ++r) *--slot = 0;                  // rbp rbx r12 r13 r14 r15
    std::uint32_t mxcsr = 0;
    std::uint16_t fpucw = 0;
    asm volatile("stmxcsr %0" : "=m"(mxcsr));
    asm volatile("fnstcw %0" : "=m"(fpucw));
    *--slot = static_cast<std::uint64_t>(mxcsr) | (static_cast<std::uint64_t>(fpucw) << 32);
    f.context.sp = slot;
#else
    getcontext(&f.context);
    f.context.uc_stack.ss_sp = f.stack.get();
    f.context.uc_stack.ss_size = kStackBytes;
    f.context.uc_link = &s.main;
    makecontext(&f.context, fiber_entry, 0);
#endif
}

void wait_at(FiberState barrier) {
    if (active == nullptr) throw EmulationError("__syncthreads()/__syncwarp() called outside gi::emu::launch");
    Fiber& fiber = active->fibers[active->current];
    fiber.state = barrier;
    switch_to(fiber.context, active->main);
}

std::string thread_name(const Fiber& f) {
    return "thread (" + std::to_string(f.index.x) + "," + std::to_string(f.index.y) + "," +
           std::to_string(f.index.z) + ") of block (" + std::to_string(blockIdx.x) + "," +
           std::to_string(blockIdx.y) + "," + std::to_string(blockIdx.z) + ")";
}

// Releases warps whose live threads all wait at __syncwarp; true when any was released.
bool release_warps(std::vector<Fiber>& fibers) {
    bool released = false;
    for (std::size_t first = 0; first < fibers.size(); first += kWarpSize) {
        const std::size_t last = std::min(fibers.size(), first + kWarpSize);
        bool any_waiting = false;
        bool all_waiting = true;
        for (std::size_t i = first; i < last; ++i) {
            if (fibers[i].state == FiberState::AtWarpBarrier) any_waiting = true;
            else if (fibers[i].state != FiberState::Done) all_waiting = false;
        }
        if (any_waiting && all_waiting) {
            for (std::size_t i = first; i < last; ++i) {
                if (fibers[i].state == FiberState::AtWarpBarrier) fibers[i].state = FiberState::Ready;
            }
            released = true;
        }
    }
    return released;
}

void run_block(Scheduler& s, Order order) {
    const std::size_t n = s.fibers.size();
    for (std::size_t i = 0; i < n; ++i) {
        Fiber& f = s.fibers[i];
        f.state = FiberState::Ready;
        start_context(f, s);
    }
    for (;;) {
        for (std::size_t k = 0; k < n; ++k) {
            const std::size_t i = order == Order::Forward ? k : n - 1 - k;
            Fiber& f = s.fibers[i];
            if (f.state != FiberState::Ready) continue;
            s.current = i;
            threadIdx = f.index;
            switch_to(s.main, f.context);
        }
        if (release_warps(s.fibers)) continue;
        std::size_t done = 0, at_block = 0;
        for (const Fiber& f : s.fibers) {
            done += f.state == FiberState::Done;
            at_block += f.state == FiberState::AtBlockBarrier;
        }
        if (done == n) return;
        if (at_block == n) {
            for (Fiber& f : s.fibers) f.state = FiberState::Ready;
            continue;
        }
        // Some threads wait at a barrier the others can never reach.
        for (const Fiber& f : s.fibers) {
            if (f.state == FiberState::Done) {
                throw EmulationError("barrier divergence: " + thread_name(f) +
                                     " finished while other threads of its block wait at a barrier");
            }
        }
        for (const Fiber& f : s.fibers) {
            if (f.state == FiberState::AtWarpBarrier) {
                throw EmulationError("deadlock: " + thread_name(f) +
                                     " waits at __syncwarp() while threads of its warp wait at __syncthreads()");
            }
        }
        throw EmulationError("deadlock in the emulated block");
    }
}

}  // namespace

void __syncthreads() { wait_at(FiberState::AtBlockBarrier); }

void __syncwarp(unsigned mask) {
    if (mask != 0xffffffffu) throw EmulationError("the emulator supports only __syncwarp() with a full mask");
    wait_at(FiberState::AtWarpBarrier);
}

void launch(dim3 grid, dim3 block, const std::function<void()>& thread_body, Order order) {
    const std::size_t threads = static_cast<std::size_t>(block.x) * block.y * block.z;
    if (threads == 0 || threads > 1024) {
        throw EmulationError("block of " + std::to_string(threads) + " threads; CUDA allows 1..1024");
    }
    if (grid.x == 0 || grid.y == 0 || grid.z == 0) throw EmulationError("empty grid");
    if (active != nullptr) throw EmulationError("gi::emu::launch is not reentrant");
    Scheduler s;
    s.body = &thread_body;
    s.fibers.resize(threads);
    std::size_t i = 0;
    for (unsigned z = 0; z < block.z; ++z) {
        for (unsigned y = 0; y < block.y; ++y) {
            for (unsigned x = 0; x < block.x; ++x, ++i) {
                s.fibers[i].index = uint3{x, y, z};
                s.fibers[i].stack.reset(new char[kStackBytes]);
            }
        }
    }
    gridDim = grid;
    blockDim = block;
    active = &s;
    try {
        for (unsigned bz = 0; bz < grid.z; ++bz) {
            for (unsigned by = 0; by < grid.y; ++by) {
                for (unsigned bx = 0; bx < grid.x; ++bx) {
                    blockIdx = uint3{bx, by, bz};
                    run_block(s, order);
                }
            }
        }
    } catch (...) {
        active = nullptr;
        throw;
    }
    active = nullptr;
}

}  // namespace gi::emu
