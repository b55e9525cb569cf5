// Runs pcm_to_float on a generated recording, checks every sample against the CPU reference, and
// times a pass (its one launch) with CUDA events. Prints one summary line and PASS or FAIL; exit 0
// on PASS, 1 on FAIL, 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "pcm_to_float/pcm_to_float.cuh"
#include "pcm_to_float/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// The GPU may contract the subtraction and the product into one multiply-add: an ulp of a sample
// in [-1, 1).
constexpr double kTolerance = 1e-6;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"count", 1 << 23}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: pcm_to_float_driver [--count 8388608] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  one thread a sample, blocks of 256\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: pcm_to_float_driver --count 1000003");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int count = static_cast<int>(options.get("count", 1, 1 << 28));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("pcm_to_float_driver")) return gi::kernels::kExitWaived;

    const gi::pcm::PcmProblem problem = gi::pcm::make_pcm_problem(count, seed);
    DeviceBuffer<short> samples(problem.samples);
    DeviceBuffer<float> out(static_cast<std::size_t>(count));
    out.poison();
    const auto pass = [&] {
        gi::kernels::launch_kernel(pcm_to_float, "pcm_to_float", pcm_grid(count), pcm_block(), samples.get(), out.get(),
                                   count, problem.gain, problem.dc_offset);
    };
    pass();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(static_cast<std::size_t>(count));
    GI_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    const std::vector<float> expected = gi::pcm::pcm_to_float_reference(problem);
    long long bad = 0;
    double worst = 0;
    for (int n = 0; n < count; ++n) {
        const double error = std::abs(double(got[static_cast<std::size_t>(n)]) - expected[static_cast<std::size_t>(n)]);
        if (!(error <= kTolerance)) {
            if (bad < 5) std::fprintf(stderr, "sample %d: kernel %.7g, reference %.7g\n", n, got[n], expected[n]);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(pass, warmup, reps);
    std::printf("pcm_to_float [%s] %d samples: pass median %.4f ms (spread %.4f, min %.4f, %d reps), %.1f GB/s; "
                "%lld samples beyond %.0e, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), count, timing.median_ms, timing.spread_ms, timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? double(count) * 6 / (timing.median_ms * 1e6) : 0.0, bad, kTolerance, worst,
                ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("pcm_to_float_driver", run, argc, argv); }
