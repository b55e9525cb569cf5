// bspline.cu compiled for the emulator under one gene configuration (see emulated_kernels.hpp).
#include <cstring>

#include "emulator/cuda_emulator.hpp"
#include "emulator/emulated_kernels.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "bspline/bspline.cu"
}  // namespace GI_EMU_CONFIG

namespace {

static_assert(sizeof(gi::emu::float4) == sizeof(gi::bspline::Float4));

std::vector<gi::bspline::Float4> run(const gi::bspline::DeformationCase& c, int use_bspline, gi::emu::Order order) {
    const int active = static_cast<int>(c.active_blocks.size());
    std::vector<gi::emu::float4> control_points(c.control_points.size());
    std::memcpy(control_points.data(), c.control_points.data(), control_points.size() * sizeof(gi::emu::float4));
    // Poisoned with NaN, so outputs the kernel never writes fail the comparison.
    std::vector<gi::emu::float4> out(static_cast<std::size_t>(active) * 25, gi::emu::make_float4(NAN, NAN, NAN, NAN));
    gi::emu::launch(GI_EMU_CONFIG::bspline_grid(active), GI_EMU_CONFIG::bspline_block(), [&] {
        GI_EMU_CONFIG::bspline_kernel(control_points.data(), c.active_blocks.data(), out.data(), active, c.image_x,
                                      c.image_y, c.grid_x, c.grid_y, use_bspline);
    }, order);
    std::vector<gi::bspline::Float4> result(out.size());
    std::memcpy(result.data(), out.data(), out.size() * sizeof(gi::emu::float4));
    return result;
}

const bool registered = [] {
    gi::emu::bspline_configs().push_back({GI_EMU_SETTINGS, run, [](int active_count) {
        return std::make_pair(GI_EMU_CONFIG::bspline_block(), GI_EMU_CONFIG::bspline_grid(active_count));
    }});
    return true;
}();

}  // namespace
