// Runs bspline_kernel on random squashed-ball volumes (seed 001 4.1), checks every output component
// against the double-precision CPU reference (1e-3 absolute) and times it with CUDA events. One
// summary line; exit 0 when everything is within tolerance, 1 otherwise, 2 for bad arguments.
#include <cmath>
#include <cstdio>
#include <exception>

#include "bspline/bspline.cuh"
#include "bspline/reference.hpp"
#include "common/cuda_check.cuh"
#include "common/driver_options.hpp"
#include "common/launch.cuh"

namespace {

using gi::kernels::DeviceBuffer;
static_assert(sizeof(gi::bspline::Float4) == sizeof(float4), "Float4 must match CUDA's float4");

int run(int argc, char** argv) {
    const gi::kernels::DriverOptions options(
        argc, argv, {{"size", 217}, {"seed", 1}, {"cases", 1}, {"use-bspline", 1}, {"warmup", 3}, {"reps", 20}},
        "usage: bspline_driver [--size 217] [--seed 1] [--cases 1] [--use-bspline 1] [--warmup 3] [--reps 20]\n"
        "  --reps 0 (or GI_RECORD_DIR set): check without timing\n"
        "example: bspline_driver --size 160 --cases 3 --use-bspline 0");
    if (options.help()) {
        std::puts(options.usage().c_str());
        return 0;
    }
    const int size = static_cast<int>(options.get("size", 10, 1000));
    const auto seed = static_cast<std::uint64_t>(options.get("seed", 0, 1LL << 62));
    const int cases = static_cast<int>(options.get("cases", 1, 1000));
    const int use_bspline = static_cast<int>(options.get("use-bspline", 0, 1));
    const int warmup = static_cast<int>(options.get("warmup", 0, 1000));
    const int reps = gi::kernels::recording() ? 0 : static_cast<int>(options.get("reps", 0, 100000));

    long long elements = 0, bad = 0;
    double worst = 0;
    gi::kernels::TimingSummary timing;
    int first_active_count = 0, first_active_voxels = 0;
    for (int n = 0; n < cases; ++n) {
        const gi::bspline::DeformationCase c = gi::bspline::make_case(size, seed + n);
        const auto expected = gi::bspline::deformation_reference(c, use_bspline != 0);
        const int active = static_cast<int>(c.active_blocks.size());
        DeviceBuffer<float4> control_points(c.control_points.size());
        GI_CUDA_CHECK(cudaMemcpy(control_points.get(), c.control_points.data(),
                                 c.control_points.size() * sizeof(float4), cudaMemcpyHostToDevice));
        DeviceBuffer<int> active_blocks(c.active_blocks);
        DeviceBuffer<float4> deformation(static_cast<std::size_t>(active) * 25);
        deformation.poison();  // NaN patterns: an unwritten output fails the comparison
        const auto launch = [&] {
            gi::kernels::launch_kernel(bspline_kernel, "bspline_kernel", bspline_grid(active), bspline_block(),
                                       control_points.get(), active_blocks.get(), deformation.get(), active, c.image_x,
                                       c.image_y, c.grid_x, c.grid_y, use_bspline);
        };
        launch();
        GI_CUDA_CHECK(cudaDeviceSynchronize());
        const std::vector<float4> got = deformation.download();
        for (std::size_t i = 0; i < got.size(); ++i) {
            const float values[3] = {got[i].x, got[i].y, got[i].z};
            for (int a = 0; a < 3; ++a) {
                const double error = std::abs(double(values[a]) - expected[i][a]);
                ++elements;
                if (!(error <= gi::bspline::kTolerance)) {  // NaN fails too
                    if (bad < 5) {
                        std::fprintf(stderr, "case %d output %zu component %d: kernel %.7g, reference %.7g\n", n, i, a,
                                     values[a], expected[i][a]);
                    }
                    ++bad;
                }
                if (std::isnan(error) || error > worst) worst = std::isnan(error) ? INFINITY : error;
            }
        }
        if (n == 0) {
            first_active_count = active;
            first_active_voxels = c.active_voxels;
            if (reps > 0) timing = gi::kernels::time_with_events(launch, warmup, reps);
        }
    }
    const dim3 block = bspline_block();
    const dim3 grid = bspline_grid(first_active_count);
    std::printf("bspline_kernel [%s] %d^3 (%d active voxels in %d 1x5x5 blocks) block=%u grid=%u: median %.4f ms (spread %.4f, min %.4f, "
                "%d reps), %.2f G voxel outputs/s; %d case(s), %lld components, %lld beyond %.0e, worst %.3g -> %s\n",
                gi::kernels::launch_mode(), size, first_active_voxels, first_active_count, block.x, grid.x, timing.median_ms, timing.spread_ms, timing.min_ms,
                timing.repetitions, first_active_count * 25.0 / (timing.median_ms * 1e6), cases, elements, bad,
                gi::bspline::kTolerance, worst, bad == 0 ? "OK" : "FAIL");
    return bad == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const gi::UsageError& e) {
        std::fprintf(stderr, "bspline_driver: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bspline_driver: %s\n", e.what());
        return 1;
    }
}
