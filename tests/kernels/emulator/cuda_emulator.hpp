#pragma once
// Just enough of CUDA to run the example kernels' own .cu files on the CPU, so the tests check the
// real kernel source (under many gene settings) on machines without a GPU.
//
// Each CUDA thread of a block is a fiber (ucontext); blocks run one after another. __syncthreads()
// and __syncwarp() are real barriers: a fiber stops there until every live thread of its block
// (warp) has arrived. A barrier some threads can never reach (threads that finished, or wait at a
// different barrier) is reported as an error, as compute-sanitizer's synccheck would. Threads run
// between barriers in a chosen order (forward or reverse); a kernel whose result depends on that
// order has a race. __shared__ becomes `static`, which is right while blocks run one at a time.
//
// Include this, then the kernel's .cu inside a namespace that says `using namespace gi::emu;`.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>

namespace gi::emu {

struct uint3 {
    unsigned x = 0, y = 0, z = 0;
};

struct dim3 {
    unsigned x = 1, y = 1, z = 1;
    constexpr dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

struct float4 {
    float x = 0, y = 0, z = 0, w = 0;
};
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }

// The running thread's coordinates; the scheduler sets them before it resumes a fiber.
inline uint3 threadIdx;
inline uint3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

void __syncthreads();
void __syncwarp(unsigned mask = 0xffffffffu);

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline float min(float a, float b) { return std::fmin(a, b); }
inline float max(float a, float b) { return std::fmax(a, b); }

// __mul24: the product of the low 24 bits of each operand (sign-extended), low 32 bits kept.
inline int __mul24(int a, int b) {
    const auto low24 = [](int v) {
        const std::int32_t bits = static_cast<std::int32_t>(static_cast<std::uint32_t>(v) << 8);
        return static_cast<std::int64_t>(bits >> 8);
    };
    return static_cast<int>(static_cast<std::uint32_t>(static_cast<std::uint64_t>(low24(a) * low24(b))));
}

template <class T>
T __ldg(const T* address) {
    return *address;
}

// __shfl_down_sync for whole warps: every lane puts its value in a slot of its own, the warp meets
// at __syncwarp, each lane reads lane + delta's (its own past the warp's end), and the warp meets
// again before a slot is reused. The slots are per value type; blocks run one at a time.
template <class T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta) {
    static T slots[1024];
    const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    slots[linear] = value;
    __syncwarp(mask);
    const T out = linear % 32 + delta < 32 ? slots[linear + delta] : value;
    __syncwarp(mask);
    return out;
}

enum class Order { Forward, Reverse };

// A kernel that broke the emulator's rules (barrier divergence, deadlock, block too large).
class EmulationError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Runs `thread_body` once per thread of grid x block, block by block, as described above.
// Throws EmulationError for barrier misuse or a block over 1024 threads.
void launch(dim3 grid, dim3 block, const std::function<void()>& thread_body, Order order = Order::Forward);

}  // namespace gi::emu

// CUDA's keywords, for the kernel sources.
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __constant__
#define __shared__ static
#define __launch_bounds__(...)
