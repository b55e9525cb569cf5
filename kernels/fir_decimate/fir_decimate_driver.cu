// Runs fir_decimate (one launch a phase) on a generated signal and filter, checks every phase's
// outputs against the CPU reference, and times one pass over the phases with CUDA events. Prints
// one summary line and PASS or FAIL; exit 0 on PASS, 1 on FAIL, 2 for bad arguments or without a
// GPU (waived).
#include <cmath>
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "fir_decimate/fir_decimate.cuh"
#include "fir_decimate/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// The kernel and the reference add the same floats in the same order; the GPU may fuse a
// multiply-add, which moves a sum of a few hundred products by some units in the last place.
constexpr double kTolerance = 1e-4;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv,
        {{"outputs", 1 << 20}, {"decimation", 4}, {"taps", 512}, {"phases", 4}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: fir_decimate_driver [--outputs 1048576] [--decimation 4] [--taps 512] [--phases 4] [--seed 1]\n"
        "                           [--warmup 3] [--reps 20]\n"
        "  --phases: launches a pass, one a phase, each summing every phases-th tap\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: fir_decimate_driver --outputs 100000 --decimation 3 --taps 127 --phases 3");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int outputs = static_cast<int>(options.get("outputs", 1, 1 << 24));
    const int decimation = static_cast<int>(options.get("decimation", 1, 64));
    const int tap_count = static_cast<int>(options.get("taps", 1, 4096));
    const int phases = static_cast<int>(options.get("phases", 1, 4096));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (phases > tap_count) {
        std::fprintf(stderr, "fir_decimate_driver: --phases %d is more than --taps %d\n", phases, tap_count);
        return gi::kernels::kExitWaived;
    }
    if (gi::kernels::waived_without_device("fir_decimate_driver")) return gi::kernels::kExitWaived;

    const gi::fir::FilterProblem problem = gi::fir::make_filter_problem(outputs, decimation, tap_count, phases, seed);
    DeviceBuffer<float> signal(problem.signal), taps(problem.taps), out(static_cast<std::size_t>(outputs) * phases);
    out.poison();
    const auto pass = [&] {
        for (int phase = 0; phase < phases; ++phase)
            gi::kernels::launch_kernel(fir_decimate, "fir_decimate", fir_grid(outputs), fir_block(), signal.get(),
                                       taps.get(), out.get() + static_cast<std::size_t>(phase) * outputs, outputs,
                                       decimation, tap_count, phase, phases);
    };
    pass();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(static_cast<std::size_t>(outputs) * phases);
    GI_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    long long bad = 0;
    double worst = 0, largest = 0;
    for (int phase = 0; phase < phases; ++phase) {
        const std::vector<float> expected = gi::fir::fir_decimate_reference(problem, phase);
        for (int i = 0; i < outputs; ++i) {
            const float g = got[static_cast<std::size_t>(phase) * outputs + i];
            const double error = std::abs(double(g) - expected[static_cast<std::size_t>(i)]);
            if (!(error <= kTolerance)) {
                if (bad < 5) std::fprintf(stderr, "phase %d, output %d: kernel %.7f, reference %.7f\n", phase, i, g, expected[i]);
                ++bad;
            }
            worst = std::isnan(error) ? INFINITY : std::max(worst, error);
            largest = std::max(largest, std::abs(double(expected[static_cast<std::size_t>(i)])));
        }
    }
    const bool ok = bad == 0 && largest > 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(pass, warmup, reps);
    std::printf("fir_decimate [%s] %d outputs x %d phases, decimation %d, %d taps: pass median %.4f ms (spread %.4f, "
                "min %.4f, %d reps), %.1f G taps/s; %lld outputs beyond %.0e, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), outputs, phases, decimation, tap_count, timing.median_ms, timing.spread_ms,
                timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? double(outputs) * tap_count / (timing.median_ms * 1e6) : 0.0, bad, kTolerance,
                worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("fir_decimate_driver", run, argc, argv); }
