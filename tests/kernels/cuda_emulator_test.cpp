// The CPU emulator the kernel tests rely on: barriers really wait, misuse is reported, thread order
// between barriers is what exposes races, and the built-ins mean what CUDA's do.
#include <gtest/gtest.h>

#include <vector>

#include "emulator/cuda_emulator.hpp"

namespace gi::emu {
namespace {

std::vector<int> neighbour_exchange(bool with_barrier, Order order) {
    std::vector<int> out(8, -1);
    launch(dim3(1), dim3(8), [&] {
        __shared__ int cell[8];
        const int tid = static_cast<int>(threadIdx.x);
        cell[tid] = 100 + tid;
        if (with_barrier) __syncthreads();
        out[tid] = cell[(tid + 1) % 8];
        if (with_barrier) {
            __syncthreads();
            cell[tid] = -7;  // scribble, so a later launch cannot pass by reading this one's values
        }
    }, order);
    return out;
}

TEST(CudaEmulator, BarrierMakesEveryWriteVisibleWhateverTheOrder) {
    const std::vector<int> expected = {101, 102, 103, 104, 105, 106, 107, 100};
    EXPECT_EQ(neighbour_exchange(true, Order::Forward), expected);
    EXPECT_EQ(neighbour_exchange(true, Order::Reverse), expected);
}

TEST(CudaEmulator, MissingBarrierShowsAsOrderDependentResult) {
    EXPECT_NE(neighbour_exchange(false, Order::Forward), neighbour_exchange(false, Order::Reverse));
}

TEST(CudaEmulator, ReportsBarrierDivergence) {
    const auto kernel = [] {
        if (threadIdx.x == 3) return;
        __syncthreads();
    };
    try {
        launch(dim3(2), dim3(8), kernel);
        FAIL() << "no error";
    } catch (const EmulationError& e) {
        EXPECT_NE(std::string(e.what()).find("barrier divergence"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("thread (3,0,0) of block (0,0,0)"), std::string::npos) << e.what();
    }
}

TEST(CudaEmulator, ReportsWarpBarrierAgainstBlockBarrierDeadlock) {
    const auto kernel = [] {
        if (threadIdx.x == 0) {
            __syncwarp();
        } else {
            __syncthreads();
        }
    };
    EXPECT_THROW(launch(dim3(1), dim3(64), kernel), EmulationError);
}

TEST(CudaEmulator, WarpBarrierWaitsOnlyForItsOwnWarp) {
    std::vector<int> out(64, -1);
    launch(dim3(1), dim3(64), [&] {
        __shared__ int cell[64];
        const int tid = static_cast<int>(threadIdx.x);
        const int warp_first = tid & ~31;
        if (tid >= 32) {
            cell[tid] = tid;
            __syncwarp();
            out[tid] = cell[warp_first + (tid + 1) % 32];
        } else {
            cell[tid] = 1000 + tid;
            __syncwarp();
            out[tid] = cell[(tid + 31) % 32];
        }
    }, Order::Reverse);
    EXPECT_EQ(out[0], 1031);
    EXPECT_EQ(out[5], 1004);
    EXPECT_EQ(out[32], 33);
    EXPECT_EQ(out[63], 32);
}

TEST(CudaEmulator, BuiltInCoordinatesCoverTheGrid) {
    std::vector<int> hits(6 * 4 * 3, 0);
    launch(dim3(3, 2), dim3(2, 2, 3), [&] {
        const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
        const unsigned y = blockIdx.y * blockDim.y + threadIdx.y;
        ++hits[(threadIdx.z * 4 + y) * 6 + x];
        EXPECT_EQ(gridDim.x, 3u);
        EXPECT_EQ(gridDim.y, 2u);
    });
    for (int h : hits) EXPECT_EQ(h, 1);
}

TEST(CudaEmulator, Mul24UsesTheLow24BitsOfEachOperand) {
    EXPECT_EQ(__mul24(7, 9), 63);
    EXPECT_EQ(__mul24(-2, 3), -6);
    EXPECT_EQ(__mul24(0x1000000 + 5, 3), 15);  // bit 24 is not part of the operand
    EXPECT_EQ(__mul24(4096, 4096), 16777216);  // the product keeps its low 32 bits
}

TEST(CudaEmulator, RejectsImpossibleLaunches) {
    EXPECT_THROW(launch(dim3(1), dim3(1025), [] {}), EmulationError);
    EXPECT_THROW(launch(dim3(0), dim3(32), [] {}), EmulationError);
    EXPECT_THROW(__syncthreads(), EmulationError);
}

}  // namespace
}  // namespace gi::emu
