// Runs --iterations SRAD iterations (the host computes q0^2 from the image, then
// diffusion_coefficients and diffusion_update) on a synthetic ultrasound image, checks the image
// and the last iteration's coefficients against the CPU reference, and times one iteration's two
// launches with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on PASS, 1 on FAIL,
// 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>
#include <string>

#include "aniso_diffusion/aniso_diffusion.cuh"
#include "aniso_diffusion/reference.hpp"
#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"

namespace {

using gi::kernels::DeviceBuffer;

constexpr float kLambda = 0.5f;
// The kernels and the reference do the same float operations; fused multiply-adds on the GPU and
// q0^2 taken from either side's image leave differences far below these.
constexpr double kAbsTolerance = 1e-3;
constexpr double kRelTolerance = 1e-3;

struct Comparison {
    long long bad = 0;
    double worst = 0;
};

void compare(const char* what, const std::vector<float>& got, const std::vector<float>& expected, int cols,
             Comparison& total) {
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double error = std::abs(double(got[i]) - expected[i]);
        if (!(error <= kAbsTolerance + kRelTolerance * std::abs(expected[i]))) {
            if (total.bad < 5)
                std::fprintf(stderr, "%s (%zu,%zu): kernel %.7g, reference %.7g\n", what, i / cols, i % cols, got[i],
                             expected[i]);
            ++total.bad;
        }
        total.worst = std::isnan(error) ? INFINITY : std::max(total.worst, error);
    }
}

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"rows", 928}, {"cols", 928}, {"iterations", 20}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: aniso_diffusion_driver [--rows 928] [--cols 928] [--iterations 20] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  --iterations: SRAD iterations (two launches each), checked against the CPU reference\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: aniso_diffusion_driver --rows 480 --cols 640 --iterations 50");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int rows = static_cast<int>(options.get("rows", 2, 16384));
    const int cols = static_cast<int>(options.get("cols", 2, 16384));
    const int iterations = static_cast<int>(options.get("iterations", 1, 100000));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("aniso_diffusion_driver")) return gi::kernels::kExitWaived;

    const std::vector<float> original = gi::aniso_diffusion::make_ultrasound_image(rows, cols, seed);
    const std::size_t n = original.size();
    DeviceBuffer<float> image(original), d_north(n), d_south(n), d_west(n), d_east(n), coefficient(n), q_squared(n);
    for (DeviceBuffer<float>* b : {&d_north, &d_south, &d_west, &d_east, &coefficient, &q_squared}) b->poison();

    const dim3 grid = diffusion_grid(rows, cols), block = diffusion_block();
    const auto iterate = [&](float q0_squared) {
        gi::kernels::launch_kernel(diffusion_coefficients, "diffusion_coefficients", grid, block, image.get(),
                                   d_north.get(), d_south.get(), d_west.get(), d_east.get(), coefficient.get(),
                                   q_squared.get(), rows, cols, q0_squared);
        gi::kernels::launch_kernel(diffusion_update, "diffusion_update", grid, block, image.get(), d_north.get(),
                                   d_south.get(), d_west.get(), d_east.get(), coefficient.get(), rows, cols, kLambda);
    };
    std::vector<float> expected = original;
    gi::aniso_diffusion::Coefficients expected_k;
    float q0_squared = 0;
    for (int it = 0; it < iterations; ++it) {
        // The speckle scale of the current image, on the host as the original program does.
        q0_squared = gi::aniso_diffusion::speckle_scale(image.download(), rows, cols);
        iterate(q0_squared);
        expected_k = gi::aniso_diffusion::coefficients_reference(
            expected, rows, cols, gi::aniso_diffusion::speckle_scale(expected, rows, cols));
        gi::aniso_diffusion::update_reference(expected, expected_k, rows, cols, kLambda);
    }
    GI_CUDA_CHECK(cudaDeviceSynchronize());

    Comparison total;
    const std::vector<float> got = image.download();
    compare("image", got, expected, cols, total);
    compare("d_north", d_north.download(), expected_k.d_north, cols, total);
    compare("d_south", d_south.download(), expected_k.d_south, cols, total);
    compare("d_west", d_west.download(), expected_k.d_west, cols, total);
    compare("d_east", d_east.download(), expected_k.d_east, cols, total);
    compare("coefficient", coefficient.download(), expected_k.coefficient, cols, total);
    compare("q_squared", q_squared.download(), expected_k.q_squared, cols, total);
    double change = 0;
    for (std::size_t i = 0; i < n; ++i) change = std::max(change, std::abs(double(got[i]) - original[i]));
    const bool ok = total.bad == 0 && change > 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events([&] { iterate(q0_squared); }, warmup, reps);
    std::printf("diffusion_coefficients+update [%s] %dx%d, %d iterations, grid=(%u,%u): iteration median %.4f ms "
                "(spread %.4f, min %.4f, %d reps), %.1f Mpixel/s; %lld values beyond abs %.0e + rel %.0e, worst %.3g, "
                "max change %.3g -> %s\n",
                gi::kernels::launch_mode(), rows, cols, iterations, grid.x, grid.y, timing.median_ms, timing.spread_ms,
                timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? rows * double(cols) / (timing.median_ms * 1e3) : 0.0, total.bad, kAbsTolerance,
                kRelTolerance, total.worst, change, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("aniso_diffusion_driver", run, argc, argv); }
