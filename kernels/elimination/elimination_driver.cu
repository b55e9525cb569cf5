// Solves a generated diagonally dominant system with the elimination kernels (two launches per
// column) and back substitution on the host, checks the triangular system against a double CPU
// elimination and the solution against the known one, and times a whole elimination with CUDA
// events. Prints one summary line and PASS or FAIL; exit 0 on PASS, 1 on FAIL, 2 for bad arguments
// or without a GPU (waived).
#include <cmath>
#include <cstdio>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "elimination/elimination.cuh"
#include "elimination/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

// Float elimination of a well-conditioned system against double: U's diagonal is about n / 2.
constexpr double kAbsTolerance = 1e-4;
constexpr double kRelTolerance = 1e-4;
constexpr double kSolutionTolerance = 1e-3;  // x_true is in [-1, 1)

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"n", 1000}, {"seed", 1}, {"warmup", 1}, {"reps", 5}},
        "usage: elimination_driver [--n 1000] [--seed 1] [--warmup 1] [--reps 5]\n"
        "  --n: unknowns; n - 1 elimination steps of two launches each\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: elimination_driver --n 2048 --seed 3");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int n = static_cast<int>(options.get("n", 2, 16384));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("elimination_driver")) return gi::kernels::kExitWaived;

    const gi::elimination::System system = gi::elimination::make_system(n, seed);
    DeviceBuffer<float> pristine_a(system.a), pristine_b(system.b), a(system.a.size()), b(system.b.size()),
        m(system.a.size());
    GI_CUDA_CHECK(cudaMemset(m.get(), 0, system.a.size() * sizeof(float)));
    const auto eliminate = [&] {
        GI_CUDA_CHECK(cudaMemcpy(a.get(), pristine_a.get(), system.a.size() * sizeof(float), cudaMemcpyDeviceToDevice));
        GI_CUDA_CHECK(cudaMemcpy(b.get(), pristine_b.get(), system.b.size() * sizeof(float), cudaMemcpyDeviceToDevice));
        for (int t = 0; t < n - 1; ++t) {
            gi::kernels::launch_kernel(eliminate_multipliers, "eliminate_multipliers", multipliers_grid(n, t),
                                       multipliers_block(), a.get(), m.get(), n, t);
            gi::kernels::launch_kernel(eliminate_rows, "eliminate_rows", rows_grid(n, t), rows_block(), a.get(), b.get(),
                                       m.get(), n, t);
        }
    };
    eliminate();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<float> got_a = a.download(), got_b = b.download();

    std::vector<double> expected_a(system.a.begin(), system.a.end()), expected_b(system.b.begin(), system.b.end());
    gi::elimination::eliminate_reference(expected_a, expected_b, n);
    long long bad = 0;
    double worst = 0;
    const auto compare = [&](const char* what, float got, double expected, std::size_t at) {
        const double error = std::abs(got - expected);
        if (!(error <= kAbsTolerance + kRelTolerance * std::abs(expected))) {
            if (bad < 5) std::fprintf(stderr, "%s %zu: kernel %.8g, reference %.8g\n", what, at, got, expected);
            ++bad;
        }
        worst = std::isnan(error) ? INFINITY : std::max(worst, error / (1 + std::abs(expected)));
    };
    for (std::size_t k = 0; k < got_a.size(); ++k) compare("a", got_a[k], expected_a[k], k);
    for (int i = 0; i < n; ++i) compare("b", got_b[i], expected_b[i], i);
    const std::vector<double> x = gi::elimination::back_substitute(got_a, got_b, n);
    double solution_error = 0;
    for (int i = 0; i < n; ++i) solution_error = std::max(solution_error, std::abs(x[i] - system.x_true[i]));
    const bool ok = bad == 0 && solution_error <= kSolutionTolerance;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(eliminate, warmup, reps);
    std::printf("eliminate_rows [%s] n=%d (%d steps): elimination median %.4f ms (spread %.4f, min %.4f, %d reps); %lld "
                "entries beyond abs %.0e + rel %.0e, worst relative %.3g; solution off by %.3g -> %s\n",
                gi::kernels::launch_mode(), n, n - 1, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, bad, kAbsTolerance, kRelTolerance, worst, solution_error, ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("elimination_driver", run, argc, argv); }
