// Runs the cheapest-path sweep (dp_row, one launch per row, two row buffers in turn) over a grid of
// generated costs, checks the last row against the CPU reference exactly, and times a whole sweep
// with CUDA events. Prints one summary line and PASS or FAIL; exit 0 on PASS, 1 on FAIL, 2 for bad
// arguments or without a GPU (waived).
#include <cstdio>
#include <utility>

#include "common/cuda_check.cuh"
#include "common/device.cuh"
#include "common/driver_main.hpp"
#include "common/driver_options.hpp"
#include "common/launch.cuh"
#include "dp_sweep/dp_sweep.cuh"
#include "dp_sweep/reference.hpp"

namespace {

using gi::kernels::DeviceBuffer;

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"cols", 300000}, {"rows", 21}, {"seed", 1}, {"warmup", 2}, {"reps", 10}},
        "usage: dp_sweep_driver [--cols 300000] [--rows 21] [--seed 1] [--warmup 2] [--reps 10]\n"
        "  --rows: rows of the cost grid; the sweep launches the kernel once for each row after the first\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: dp_sweep_driver --cols 100000 --rows 100");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int cols = static_cast<int>(options.get("cols", 1, 1 << 30));
    const int rows = static_cast<int>(options.get("rows", 2, 1 << 20));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));
    if (gi::kernels::waived_without_device("dp_sweep_driver")) return gi::kernels::kExitWaived;

    const std::vector<int> costs = gi::dp_sweep::make_costs(rows, cols, seed);
    DeviceBuffer<int> d_costs(costs), row_a(cols), row_b(cols);
    int* previous = row_a.get();
    int* current = row_b.get();
    const auto sweep = [&] {
        // Row 0's best costs are its own costs.
        GI_CUDA_CHECK(cudaMemcpy(previous, d_costs.get(), cols * sizeof(int), cudaMemcpyDeviceToDevice));
        for (int r = 1; r < rows; ++r) {
            gi::kernels::launch_kernel(dp_row, "dp_row", dp_grid(cols), dp_block(), d_costs.get(), previous, current,
                                       cols, r);
            std::swap(previous, current);
        }
    };
    row_b.poison();
    sweep();
    GI_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<int> got(cols);
    GI_CUDA_CHECK(cudaMemcpy(got.data(), previous, cols * sizeof(int), cudaMemcpyDeviceToHost));

    const std::vector<int> expected = gi::dp_sweep::dp_sweep_reference(costs, rows, cols);
    long long bad = 0;
    for (int c = 0; c < cols; ++c) {
        if (got[c] != expected[c]) {
            if (bad < 5) std::fprintf(stderr, "column %d: kernel %d, reference %d\n", c, got[c], expected[c]);
            ++bad;
        }
    }
    int cheapest = expected[0];
    for (int v : expected) cheapest = std::min(cheapest, v);
    const bool ok = bad == 0;

    gi::kernels::TimingSummary timing;
    if (reps > 0) timing = gi::kernels::time_with_events(sweep, warmup, reps);
    std::printf("dp_row [%s] %d columns x %d rows (%d launches, grid=%u): sweep median %.4f ms (spread %.4f, min %.4f, "
                "%d reps), %.1f Mcell/s; cheapest path %d; %lld columns differ from the reference -> %s\n",
                gi::kernels::launch_mode(), cols, rows, rows - 1, dp_grid(cols).x, timing.median_ms, timing.spread_ms,
                timing.min_ms, timing.repetitions,
                timing.median_ms > 0 ? double(cols) * (rows - 1) / (timing.median_ms * 1e3) : 0.0, cheapest, bad,
                ok ? "OK" : "FAIL");
    std::puts(ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) { return gi::kernels::driver_main("dp_sweep_driver", run, argc, argv); }
