// Multiplies two generated matrices with matmul_tiled<--tile>, checks C against a double CPU
// product, and times the product with CUDA events. Prints one summary line and PASS or FAIL; exit 0
// on PASS, 1 on FAIL, 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>
#include <string>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "matmul/matmul.cuh"
#include "matmul/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// Float sums of K products of numbers in [-1, 1) against double ones.
constexpr double kAbsTolerance = 1e-4;
constexpr double kRelTolerance = 1e-5;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"m", 320}, {"k", 320}, {"n", 640}, {"tile", 32}, {"seed", 1}, {"warmup", 3}, {"reps", 30}},
        "usage: matmul_driver [--m 320] [--k 320] [--n 640] [--tile 32] [--seed 1] [--warmup 3] [--reps 30]\n"
        "  C (m x n) = A (m x k) B (k x n); --tile 16 or 32\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: matmul_driver --m 1024 --k 1024 --n 1024 --tile 16");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int M = static_cast<int>(options.get("m", 1, 16384));
    const int K = static_cast<int>(options.get("k", 1, 16384));
    const int N = static_cast<int>(options.get("n", 1, 16384));
    const int tile = static_cast<int>(options.get("tile", 16, 32));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    const matmul_kernel_t kernel = matmul_kernel_for(tile);
    if (kernel == nullptr) throw gi::UsageError("option '--tile' is " + std::to_string(tile) + "; it must be 16 or 32\n" + options.usage());
    if (gi::kernels::waived_without_device("matmul_driver")) return gi::kernels::kExitWaived;

    const std::vector<float> A = gi::matmul::make_matrix(M, K, seed), B = gi::matmul::make_matrix(K, N, seed + 7919);
    DeviceBuffer<float> dA(A), dB(B), dC(static_cast<std::size_t>(M) * N);
    dC.poison();
    const auto multiply = [&] {
        gi::kernels::launch_kernel(kernel, "matmul_tiled", matmul_grid(tile, M, N), matmul_block(tile), dA.get(),
                                   dB.get(), dC.get(), M, N, K);
    };
    multiply();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = dC.download();
    const std::vector<double> expected = gi::matmul::matmul_reference(A, B, M, N, K);
    long long bad = 0;
    double worst = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double error = std::abs(got[i] - expected[i]);
        if (!(error <= kAbsTolerance + kRelTolerance * std::abs(expected[i]))) {
            if (bad < 5) std::fprintf(stderr, "C(%zu,%zu): kernel %.8g, reference %.8g\n", i / N, i % N, got[i], expected[i]);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(multiply, warmup, reps);
    std::printf("matmul_tiled<%d> [%s] (%d x %d) x (%d x %d): product median %.4f ms (spread %.4f, min %.4f, %d reps), "
                "%.1f GFLOP/s; %lld entries beyond abs %.0e + rel %.0e, worst %.3g -> %s\n",
                tile, gi::kernels::launch_mode(), M, K, K, N, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, timing.median_ms > 0 ? 2.0 * M * double(N) * K / (timing.median_ms * 1e6) : 0.0, bad,
                kAbsTolerance, kRelTolerance, worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("matmul_driver", run, argc, argv); }
