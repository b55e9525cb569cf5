// Runs hydro_stage (two launches per step) on a 2D flow, checks the state after a few steps
// against the CPU reference in the same precision, that nothing became NaN and that the state
// evolved, and times a step with CUDA events, reporting cell updates per second. One summary
// line; exit 0 when all checks pass, 1 otherwise, 2 for bad arguments.
#include <cmath>
#include <cstdio>
#include <exception>
#include <utility>

#include "common/cuda_check.cuh"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "hydro/hydro.cuh"
#include "hydro/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;
using gi::hydro::Problem;

constexpr Problem kProblems[] = {Problem::EntropyWaveX, Problem::EntropyWaveY, Problem::SoundWaveX, Problem::SodX,
                                 Problem::SodY,         Problem::KelvinHelmholtz, Problem::Blasts};
constexpr double kAbsTolerance = 1e-4;
constexpr double kRelTolerance = 1e-4;

struct Grid {
    int nx, ny;
    float gamma;
    gi::hydro::Boundaries boundaries;
};

void launch_stage(const Grid& g, const float* in, const float* base, float* out, double dt) {
    gi::kernels::launch_kernel(hydro_stage, "hydro_stage", hydro_grid(g.nx, g.ny), hydro_block(), in, base, out, g.nx,
                               g.ny, static_cast<float>(dt * g.nx), static_cast<float>(dt * g.ny), g.gamma,
                               static_cast<int>(g.boundaries.periodic_x), static_cast<int>(g.boundaries.periodic_y));
}

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv,
        {{"nx", 1024}, {"ny", 1024}, {"problem", 5}, {"seed", 1}, {"steps", 3}, {"warmup", 3}, {"reps", 20}},
        "usage: hydro_driver [--nx 1024] [--ny 1024] [--problem 5] [--seed 1] [--steps 3] [--warmup 3] [--reps 20]\n"
        "  --problem: 0 entropy wave x, 1 entropy wave y, 2 sound wave, 3 Sod x, 4 Sod y,\n"
        "             5 Kelvin-Helmholtz, 6 blasts (5 and 6 use --seed)\n"
        "  --steps: two-stage steps checked against the CPU reference\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: hydro_driver --nx 512 --ny 512 --problem 6 --seed 3 --steps 5");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int nx = static_cast<int>(options.get("nx", 8, 16384));
    const int ny = static_cast<int>(options.get("ny", 8, 16384));
    const Problem problem = kProblems[options.get("problem", 0, 6)];
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int steps = static_cast<int>(options.get("steps", 1, 1000));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));

    const gi::hydro::ProblemSetup setup = gi::hydro::setup_for(problem);
    const Grid grid{nx, ny, static_cast<float>(setup.gamma), setup.boundaries};
    gi::hydro::State<float> expected = gi::hydro::initial_state<float>(problem, nx, ny, seed);
    const std::vector<float> initial = expected.u;
    DeviceBuffer<float> u0(initial), u1(initial.size()), u2(initial.size());
    u1.poison();
    u2.poison();

    // The same CFL time steps on both sides, taken from the reference's state.
    float* current = u0.get();
    float* next = u2.get();
    for (int s = 0; s < steps; ++s) {
        const double dt = gi::hydro::cfl_time_step(expected, setup.gamma, 0.4);
        launch_stage(grid, current, current, u1.get(), 0.5 * dt);
        launch_stage(grid, u1.get(), current, next, dt);
        std::swap(current, next);
        gi::hydro::step(expected, dt, setup.gamma, setup.boundaries);
    }
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<float> got(initial.size());
    GI_CUDA_CHECK(cudaMemcpy(got.data(), current, got.size() * sizeof(float), cudaMemcpyDeviceToHost));

    long long bad = 0, nans = 0;
    double worst = 0, change = 0;
    for (std::size_t k = 0; k < got.size(); ++k) {
        const double error = std::abs(double(got[k]) - expected.u[k]);
        if (std::isnan(got[k])) ++nans;
        if (!(error <= kAbsTolerance + kRelTolerance * std::abs(expected.u[k]))) {
            if (bad < 5) {
                std::fprintf(stderr, "plane %zu cell (%zu,%zu): kernel %.8g, reference %.8g\n", k / (nx * std::size_t(ny)),
                             k % nx, (k / nx) % ny, got[k], expected.u[k]);
            }
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error);
        change = std::max(change, std::abs(double(got[k]) - initial[k]));
    }
    const bool evolved = change > 1e-6;

    gi::kernels::TimingSummary timing;
    if (reps > 0) {
        // A fixed step on the current state; rotating the output buffers keeps the input intact.
        const double dt = gi::hydro::cfl_time_step(expected, setup.gamma, 0.4);
        timing = gi::kernels::time_with_events(
            [&] {
                launch_stage(grid, current, current, u1.get(), 0.5 * dt);
                launch_stage(grid, u1.get(), current, next, dt);
            },
            warmup, reps);
    }
    const dim3 block = hydro_block();
    const dim3 launch_grid = hydro_grid(nx, ny);
    const bool ok = bad == 0 && nans == 0 && evolved;
    std::printf("hydro_stage [%s] %s %dx%d block=(%u,%u) grid=(%u,%u): step (2 launches) median %.4f ms (spread %.4f, "
                "min %.4f, %d reps), %.1f Mcell updates/s; %d step(s) checked, %zu values, %lld beyond abs %.0e + rel "
                "%.0e, worst %.3g, %lld NaN, max change %.3g -> %s\n",
                gi::kernels::launch_mode(), gi::hydro::to_string(problem).c_str(), nx, ny, block.x, block.y,
                launch_grid.x, launch_grid.y, timing.median_ms, timing.spread_ms, timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? nx * double(ny) / (timing.median_ms * 1e3) : 0.0, steps, got.size(), bad,
                kAbsTolerance, kRelTolerance, worst, nans, change, ok ? "OK" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const gi::UsageError& e) {
        std::fprintf(stderr, "hydro_driver: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "hydro_driver: %s\n", e.what());
        return 1;
    }
}
