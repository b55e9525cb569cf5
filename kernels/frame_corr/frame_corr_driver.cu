// Runs frame_corr on two generated signals, checks every frame against the CPU reference, and times
// a pass (its one launch) with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on
// PASS, 1 on FAIL, 2 for bad arguments or without a GPU (waived).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "frame_corr/frame_corr.cuh"
#include "frame_corr/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// The GPU may contract each product and sum into one multiply-add: a few ulps of a frame's sum
// after a few hundred steps.
constexpr double kTolerance = 1e-4;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"frames", 32768}, {"frame", 256}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: frame_corr_driver [--frames 32768] [--frame 256] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  one thread a frame, blocks of 128\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: frame_corr_driver --frames 1000 --frame 257");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int frames = static_cast<int>(options.get("frames", 1, 1 << 24));
    const int frame = static_cast<int>(options.get("frame", 1, 1 << 24));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("frame_corr_driver")) return gi::kernels::kExitWaived;

    const gi::corr::CorrProblem problem = gi::corr::make_corr_problem(frames, frame, seed);
    DeviceBuffer<float> a(problem.a);
    DeviceBuffer<float> b(problem.b);
    DeviceBuffer<float> out(static_cast<std::size_t>(frames));
    out.poison();
    const auto pass = [&] {
        gi::kernels::launch_kernel(frame_corr, "frame_corr", corr_grid(frames), corr_block(), a.get(), b.get(), out.get(),
                                   frames, frame);
    };
    pass();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(static_cast<std::size_t>(frames));
    GI_CUDA_CHECK(cudaMemcpy(got.data(), out.get(), got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    const std::vector<float> expected = gi::corr::frame_corr_reference(problem);
    long long bad = 0;
    double worst = 0;
    for (std::size_t f = 0; f < got.size(); ++f) {
        const double error = std::abs(double(got[f]) - expected[f]) / std::max(1.0, std::abs(double(expected[f])));
        if (!(error <= kTolerance)) {
            if (bad < 5) std::fprintf(stderr, "frame %zu: kernel %.7g, reference %.7g\n", f, got[f], expected[f]);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
    }
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(pass, warmup, reps);
    const double samples = double(frames) * frame;
    std::printf("frame_corr [%s] %d frames of %d: pass median %.4f ms (spread %.4f, min %.4f, %d reps), %.1f GB/s; "
                "%lld frames beyond %.0e, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), frames, frame, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, timing.median_ms > 0 ? samples * 8 / (timing.median_ms * 1e6) : 0.0, bad, kTolerance,
                worst, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("frame_corr_driver", run, argc, argv); }
