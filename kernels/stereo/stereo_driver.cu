// Runs stereo_kernel on synthetic stereo pairs, checks every pixel against the CPU reference and
// times it with CUDA events. One summary line; exit 0 when all pixels match, 1 otherwise, 2 for
// bad arguments.
#include <cstdio>
#include <exception>

#include "common/cuda_check.cuh"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "stereo/reference.hpp"
#include "stereo/stereo.cuh"

namespace {

using gi::kernels::DeviceBuffer;

struct PairResult {
    long long pixels = 0;
    long long mismatches = 0;
    long long known = 0;
    long long recovered = 0;
};

void launch(const DeviceBuffer<unsigned char>& left, const DeviceBuffer<unsigned char>& right,
            DeviceBuffer<float>& disparity, DeviceBuffer<int>& min_ssd, int width, int height) {
    gi::kernels::launch_kernel(stereo_kernel, "stereo_kernel", stereo_grid(width, height), stereo_block(), left.get(),
                               right.get(), disparity.get(), min_ssd.get(), width, height);
}

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"width", 320}, {"height", 240}, {"seed", 1}, {"pairs", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: stereo_driver [--width 320] [--height 240] [--seed 1] [--pairs 1] [--warmup 3] [--reps 20]\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: stereo_driver --width 640 --height 480 --pairs 3");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int width = static_cast<int>(options.get("width", 16, 8192));
    const int height = static_cast<int>(options.get("height", 16, 8192));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int pairs = static_cast<int>(options.get("pairs", 1, 1000));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));

    const std::size_t n = static_cast<std::size_t>(width) * height;
    DeviceBuffer<unsigned char> left(n), right(n);
    DeviceBuffer<float> disparity(n);
    DeviceBuffer<int> min_ssd(n);
    PairResult total;
    gi::kernels::TimingSummary timing;
    for (int p = 0; p < pairs; ++p) {
        const gi::stereo::StereoPair pair = gi::stereo::make_stereo_pair(width, height, seed + p);
        const gi::stereo::DisparityMap expected = gi::stereo::stereo_reference(pair.left, pair.right);
        left.upload(pair.left.pixels);
        right.upload(pair.right.pixels);
        disparity.poison();
        min_ssd.poison();
        launch(left, right, disparity, min_ssd, width, height);
        GI_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float> got = disparity.download();
        const std::vector<int> got_ssd = min_ssd.download();
        for (std::size_t i = 0; i < n; ++i) {
            // Exact: the kernel adds integers in a different order but must find the same minimum.
            if (got[i] != expected.disparity[i] || got_ssd[i] != expected.min_ssd[i]) {
                if (total.mismatches < 5) {
                    std::fprintf(stderr, "pair %d pixel (%zu,%zu): kernel %g/%d, reference %g/%d\n", p, i % width,
                                 i / width, got[i], got_ssd[i], expected.disparity[i], expected.min_ssd[i]);
                }
                ++total.mismatches;
            }
            if (pair.true_disparity[i] >= 0) {
                ++total.known;
                total.recovered += got[i] == static_cast<float>(pair.true_disparity[i]);
            }
        }
        total.pixels += static_cast<long long>(n);
        if (p == 0 && reps > 0) {
            timing = gi::kernels::time_with_events(
                [&] { launch(left, right, disparity, min_ssd, width, height); }, warmup, reps);
        }
    }
    const dim3 block = stereo_block();
    const dim3 grid = stereo_grid(width, height);
    std::printf("stereo_kernel [%s] %dx%d block=(%u,%u) grid=(%u,%u): median %.4f ms (spread %.4f, min %.4f, %d reps); "
                "%d pair(s), %lld pixels, %lld mismatches vs CPU reference; true disparity recovered on %.1f%% -> %s\n",
                gi::kernels::launch_mode(), width, height, block.x, block.y, grid.x, grid.y, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, pairs, total.pixels, total.mismatches,
                total.known ? 100.0 * total.recovered / total.known : 0.0, total.mismatches == 0 ? "OK" : "FAIL");
    return total.mismatches == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const gi::UsageError& e) {
        std::fprintf(stderr, "stereo_driver: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "stereo_driver: %s\n", e.what());
        return 1;
    }
}
