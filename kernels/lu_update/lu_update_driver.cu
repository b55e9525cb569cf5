// Factors a generated diagonally dominant matrix with the blocked LU kernels (three launches per
// block step), checks L and U against a double-precision CPU factorisation, and times a whole
// factorisation with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on PASS, 1 on
// FAIL, 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>
#include <string>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "lu_update/lu_update.cuh"
#include "lu_update/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// Float factors against double ones of a well-conditioned matrix: the largest entries (U's
// diagonal, about n / 2) carry the largest rounding.
constexpr double kAbsTolerance = 1e-5;
constexpr double kRelTolerance = 1e-4;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"n", 1616}, {"seed", 1}, {"warmup", 2}, {"reps", 10}},
        "usage: lu_update_driver [--n 1616] [--seed 1] [--warmup 2] [--reps 10]\n"
        "  --n: the matrix side, a multiple of the block size (16); n / 16 - 1 trailing updates\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: lu_update_driver --n 2048");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int n = static_cast<int>(options.get("n", 1, 16384));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    const int block = lu_block_size();
    if (n % block != 0)
        throw gi::UsageError("option '--n' is " + std::to_string(n) + "; it must be a multiple of the block size " +
                             std::to_string(block) + "\n" + options.usage());
    if (gi::kernels::waived_without_device("lu_update_driver")) return gi::kernels::kExitWaived;

    const std::vector<float> original = gi::lu_update::make_matrix(n, seed);
    DeviceBuffer<float> pristine(original), a(original.size());
    const auto factor = [&] {
        GI_CUDA_CHECK(cudaMemcpy(a.get(), pristine.get(), original.size() * sizeof(float), cudaMemcpyDeviceToDevice));
        int offset = 0;
        for (; offset < n - block; offset += block) {
            gi::kernels::launch_kernel(lu_diagonal, "lu_diagonal", dim3(1), lu_diagonal_block(), a.get(), n, offset);
            gi::kernels::launch_kernel(lu_perimeter, "lu_perimeter", lu_perimeter_grid(n, offset), lu_diagonal_block(),
                                       a.get(), n, offset);
            gi::kernels::launch_kernel(lu_trailing_update, "lu_trailing_update", lu_trailing_grid(n, offset),
                                       lu_trailing_block(), a.get(), n, offset);
        }
        gi::kernels::launch_kernel(lu_diagonal, "lu_diagonal", dim3(1), lu_diagonal_block(), a.get(), n, offset);
    };
    factor();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got = a.download();
    const std::vector<double> expected = gi::lu_update::lu_reference(original, n);
    long long bad = 0;
    double worst = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        const double error = std::abs(got[k] - expected[k]);
        if (!(error <= kAbsTolerance + kRelTolerance * std::abs(expected[k]))) {
            if (bad < 5)
                std::fprintf(stderr, "entry (%zu,%zu): kernel %.8g, reference %.8g\n", k / n, k % n, got[k], expected[k]);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error / (1 + std::abs(expected[k])));
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(factor, warmup, reps);
    std::printf("lu_trailing_update [%s] n=%d, block %d (%d steps): factorisation median %.4f ms (spread %.4f, min %.4f, "
                "%d reps), %.1f GFLOP/s; %lld entries beyond abs %.0e + rel %.0e, worst relative %.3g -> %s\n",
                gi::kernels::launch_mode(), n, block, n / block, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, timing.median_ms > 0 ? 2.0 / 3 * n * double(n) * n / (timing.median_ms * 1e6) : 0.0,
                bad, kAbsTolerance, kRelTolerance, worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("lu_update_driver", run, argc, argv); }
