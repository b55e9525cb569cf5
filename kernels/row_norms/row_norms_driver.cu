// Runs row_norms on a generated matrix, checks every norm against the CPU reference, and times a
// pass (its one launch) with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on
// PASS, 1 on FAIL, 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "row_norms/reference.hpp"
#include "row_norms/row_norms.cuh"

namespace {

using gi::kernels::DeviceBuffer;

// The kernel adds in float along a tree, the reference in double: a few ulps of a sum of
// positive terms, well inside this.
constexpr double kRelativeTolerance = 1e-5;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"rows", 32768}, {"cols", 256}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: row_norms_driver [--rows 32768] [--cols 256] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  one block of 256 threads a row\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: row_norms_driver --rows 1000 --cols 1000");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int rows = static_cast<int>(options.get("rows", 1, 1 << 22));
    const int cols = static_cast<int>(options.get("cols", 1, 1 << 16));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (static_cast<long long>(rows) * cols > (1LL << 27)) {
        std::fprintf(stderr, "row_norms_driver: --rows %d x --cols %d is more than 2^27 entries\n", rows, cols);
        return gi::kernels::kExitWaived;
    }
    if (gi::kernels::waived_without_device("row_norms_driver")) return gi::kernels::kExitWaived;

    const gi::row_norms::NormProblem problem = gi::row_norms::make_norm_problem(rows, cols, seed);
    DeviceBuffer<float> matrix(problem.matrix), norms(static_cast<std::size_t>(rows));
    norms.poison();
    const auto pass = [&] {
        gi::kernels::launch_kernel(row_norms, "row_norms", row_norms_grid(rows), row_norms_block(), matrix.get(),
                                   norms.get(), rows, cols);
    };
    pass();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(static_cast<std::size_t>(rows));
    GI_CUDA_CHECK(cudaMemcpy(got.data(), norms.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    const std::vector<float> expected = gi::row_norms::row_norms_reference(problem);
    long long bad = 0;
    double worst = 0;
    for (int r = 0; r < rows; ++r) {
        const double e = expected[static_cast<std::size_t>(r)];
        const double error = std::abs(double(got[static_cast<std::size_t>(r)]) - e) / std::max(e, 1e-30);
        if (!(error <= kRelativeTolerance)) {
            if (bad < 5) std::fprintf(stderr, "row %d: kernel %.7g, reference %.7g\n", r, got[r], e);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(pass, warmup, reps);
    std::printf("row_norms [%s] %d rows x %d cols: pass median %.4f ms (spread %.4f, min %.4f, %d reps), %.1f GB/s; "
                "%lld norms beyond %.0e relative, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), rows, cols, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions,
                timing.median_ms > 0 ? double(rows) * cols * sizeof(float) / (timing.median_ms * 1e6) : 0.0, bad,
                kRelativeTolerance, worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("row_norms_driver", run, argc, argv); }
