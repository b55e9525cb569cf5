// Runs conv1d on a generated signal, checks every output sample against the CPU reference, and
// times a pass (its one launch) with CUDA events. Prints one summary line and PASS or FAIL; exit 0
// on PASS, 1 on FAIL, 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "conv1d/conv1d.cuh"
#include "conv1d/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// 17 float products summed in float against the double reference: a few ulps of values near 1.
constexpr double kTolerance = 1e-5;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"n", 1 << 22}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: conv1d_driver [--n 4194304] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  one thread an output sample, 17 taps, blocks of 256\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: conv1d_driver --n 1000003");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int n = static_cast<int>(options.get("n", 1, 1 << 28));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("conv1d_driver")) return gi::kernels::kExitWaived;

    const gi::conv1d::ConvProblem problem = gi::conv1d::make_conv_problem(n, seed);
    DeviceBuffer<float> signal(problem.signal);
    DeviceBuffer<float> taps(problem.taps);
    DeviceBuffer<float> out(static_cast<std::size_t>(n));
    out.poison();
    const auto pass = [&] {
        gi::kernels::launch_kernel(conv1d, "conv1d", conv1d_grid(n), conv1d_block(), signal.get(), taps.get(), out.get(), n);
    };
    pass();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(static_cast<std::size_t>(n));
    GI_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    const std::vector<double> expected = gi::conv1d::conv1d_reference(problem);
    long long bad = 0;
    double worst = 0;
    for (int k = 0; k < n; ++k) {
        const double error = std::abs(double(got[static_cast<std::size_t>(k)]) - expected[static_cast<std::size_t>(k)]);
        if (!(error <= kTolerance)) {
            if (bad < 5) std::fprintf(stderr, "sample %d: kernel %.7g, reference %.7g\n", k, got[k], expected[k]);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(pass, warmup, reps);
    std::printf("conv1d [%s] %d samples, %d taps: pass median %.4f ms (spread %.4f, min %.4f, %d reps), %.1f GB/s; "
                "%lld samples beyond %.0e, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), n, gi::conv1d::kTaps, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, timing.median_ms > 0 ? double(n) * 8 / (timing.median_ms * 1e6) : 0.0, bad, kTolerance,
                worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("conv1d_driver", run, argc, argv); }
