// hydro.cu compiled for the emulator under one gene configuration (see emulated_kernels.hpp).
#include <cmath>

#include "emulator/cuda_emulator.hpp"
#include "emulator/emulated_kernels.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "hydro/hydro.cu"
}  // namespace GI_EMU_CONFIG

namespace {

gi::hydro::State<float> run(const gi::hydro::State<float>& in, const gi::hydro::State<float>& base, float dt_dx,
                            float dt_dy, float gamma, gi::hydro::Boundaries boundaries, gi::emu::Order order) {
    gi::hydro::State<float> out{in.nx, in.ny, std::vector<float>(in.u.size(), NAN)};  // NaN: unwritten shows
    gi::emu::launch(GI_EMU_CONFIG::hydro_grid(in.nx, in.ny), GI_EMU_CONFIG::hydro_block(), [&] {
        GI_EMU_CONFIG::hydro_stage(in.u.data(), base.u.data(), out.u.data(), in.nx, in.ny, dt_dx, dt_dy, gamma,
                                   boundaries.periodic_x ? 1 : 0, boundaries.periodic_y ? 1 : 0);
    }, order);
    return out;
}

const bool registered = [] {
    gi::emu::hydro_configs().push_back({GI_EMU_SETTINGS, run, [](int nx, int ny) {
        return std::make_pair(GI_EMU_CONFIG::hydro_block(), GI_EMU_CONFIG::hydro_grid(nx, ny));
    }});
    return true;
}();

}  // namespace
