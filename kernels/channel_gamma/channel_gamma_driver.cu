// Runs channel_gamma on a generated sensor frame, checks every element against the CPU reference,
// and times a pass (its one launch) with CUDA events. Prints one summary line and PASS or FAIL;
// exit 0 on PASS, 1 on FAIL, 2 for bad arguments or without a GPU (waived).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "channel_gamma/channel_gamma.cuh"
#include "channel_gamma/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// powf (the GPU's is within 2 ulps) and a product: a few ulps of an element, relative to its size
// (at least 1).
constexpr double kTolerance = 1e-5;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"rows", 4096}, {"cols", 8192}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: channel_gamma_driver [--rows 4096] [--cols 8192] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  one thread a column (channel) walking down the rows, blocks of 256; rows * cols at most 2^28\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: channel_gamma_driver --rows 1000 --cols 3001");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int rows = static_cast<int>(options.get("rows", 1, 1 << 20));
    const int cols = static_cast<int>(options.get("cols", 1, 1 << 20));
    if (static_cast<long long>(rows) * cols > (1LL << 28)) {
        throw gi::UsageError("rows * cols is " + std::to_string(static_cast<long long>(rows) * cols) +
                             "; it must be at most 2^28\n" + options.usage());
    }
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("channel_gamma_driver")) return gi::kernels::kExitWaived;

    const gi::gamma::GammaProblem problem = gi::gamma::make_gamma_problem(rows, cols, seed);
    const std::size_t elements = problem.frame.size();
    DeviceBuffer<float> frame(problem.frame);
    DeviceBuffer<float> gains(problem.channel_gain);
    DeviceBuffer<float> out(elements);
    out.poison();
    const auto pass = [&] {
        gi::kernels::launch_kernel(channel_gamma, "channel_gamma", gamma_grid(cols), gamma_block(), frame.get(),
                                   out.get(), gains.get(), problem.gamma, rows, cols);
    };
    pass();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(elements);
    GI_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    const std::vector<float> expected = gi::gamma::channel_gamma_reference(problem);
    long long bad = 0;
    double worst = 0;
    for (std::size_t n = 0; n < elements; ++n) {
        const double reference = expected[n];
        const double error = std::abs(double(got[n]) - reference) / std::max(1.0, std::abs(reference));
        if (!(error <= kTolerance)) {
            if (bad < 5) {
                std::fprintf(stderr, "row %zu col %zu: kernel %.7g, reference %.7g\n", n / static_cast<std::size_t>(cols),
                             n % static_cast<std::size_t>(cols), got[n], expected[n]);
            }
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(pass, warmup, reps);
    std::printf("channel_gamma [%s] %d x %d frame: pass median %.4f ms (spread %.4f, min %.4f, %d reps), %.1f GB/s; "
                "%lld elements beyond %.0e relative, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), rows, cols, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, timing.median_ms > 0 ? double(elements) * 8 / (timing.median_ms * 1e6) : 0.0, bad,
                kTolerance, worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("channel_gamma_driver", run, argc, argv); }
