// Runs thermal_step (one launch per time step, two temperature buffers in turn) on a generated
// floorplan, checks the temperatures after --iterations steps against the CPU reference, and
// times one step with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on PASS, 1 on
// FAIL, 2 for bad arguments or without a GPU (waived).
#include <cmath>
#include <cstdio>
#include <utility>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "thermal/reference.hpp"
#include "thermal/thermal.cuh"

namespace {

using gi::kernels::DeviceBuffer;

// The kernel and the reference add the same floats in the same order; the GPU may fuse a
// multiply-add, which moves a temperature of ~340 K by a few units in the last place a step.
constexpr double kTolerance = 1e-3;  // kelvin

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"rows", 1024}, {"cols", 1024}, {"iterations", 20}, {"seed", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: thermal_driver [--rows 1024] [--cols 1024] [--iterations 20] [--seed 1] [--warmup 3] [--reps 20]\n"
        "  --iterations: time steps, each one launch, checked against the CPU reference\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: thermal_driver --rows 512 --cols 768 --iterations 50");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int rows = static_cast<int>(options.get("rows", 1, 16384));
    const int cols = static_cast<int>(options.get("cols", 1, 16384));
    const int iterations = static_cast<int>(options.get("iterations", 1, 100000));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("thermal_driver")) return gi::kernels::kExitWaived;

    const gi::thermal::Floorplan plan = gi::thermal::make_floorplan(rows, cols, seed);
    const gi::thermal::Coefficients k = gi::thermal::coefficients_for(rows, cols);
    GI_CUDA_CHECK(thermal_set_coefficients(k.step_over_cap, k.rx_inv, k.ry_inv, k.rz_inv, k.ambient));
    DeviceBuffer<float> power(plan.power), temp_a(plan.temperature), temp_b(plan.temperature.size());
    temp_b.poison();

    float* current = temp_a.get();
    float* next = temp_b.get();
    const auto step = [&] {
        gi::kernels::launch_kernel(thermal_step, "thermal_step", thermal_grid(rows, cols), thermal_block(), power.get(),
                                   current, next, rows, cols);
        std::swap(current, next);
    };
    for (int i = 0; i < iterations; ++i) step();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(plan.temperature.size());
    GI_CUDA_CHECK(cudaMemcpy(got.data(), current, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    std::vector<float> expected = plan.temperature, scratch;
    for (int i = 0; i < iterations; ++i) {
        gi::thermal::thermal_step_reference(plan.power, expected, scratch, rows, cols, k);
        std::swap(expected, scratch);
    }
    long long bad = 0;
    double worst = 0, change = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double error = std::abs(double(got[i]) - expected[i]);
        if (!(error <= kTolerance)) {
            if (bad < 5)
                std::fprintf(stderr, "cell (%zu,%zu): kernel %.6f K, reference %.6f K\n", i / cols, i % cols, got[i],
                             expected[i]);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
        change = std::max(change, std::abs(double(got[i]) - plan.temperature[i]));
    }
    const bool ok = bad == 0 && change > 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(step, warmup, reps);
    const dim3 grid = thermal_grid(rows, cols);
    std::printf("thermal_step [%s] %dx%d, %d steps, grid=(%u,%u): step median %.4f ms (spread %.4f, min %.4f, %d reps), "
                "%.1f Mcell updates/s; %lld cells beyond %.0e K, worst %.3g K, max change %.3g K -> %s\n",
                gi::kernels::launch_mode(), rows, cols, iterations, grid.x, grid.y, timing.median_ms, timing.spread_ms,
                timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? rows * double(cols) / (timing.median_ms * 1e3) : 0.0, bad, kTolerance, worst,
                change, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("thermal_driver", run, argc, argv); }
