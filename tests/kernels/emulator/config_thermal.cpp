// thermal.cu compiled for the emulator under one configuration (see corpus_kernels.hpp).
#include <cmath>
#include <cstddef>
#include <cstring>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "emulator/runtime_shim.hpp"
#include "thermal/thermal.cu"
}  // namespace GI_EMU_CONFIG

namespace {

std::vector<float> run(const std::vector<float>& power, const std::vector<float>& in, int rows, int cols,
                       const gi::thermal::Coefficients& k, gi::emu::Order order) {
    if (GI_EMU_CONFIG::thermal_set_coefficients(k.step_over_cap, k.rx_inv, k.ry_inv, k.rz_inv, k.ambient) != 0)
        throw gi::emu::EmulationError("thermal_set_coefficients failed");
    std::vector<float> out(in.size(), NAN);  // NaN: a cell the kernel never writes shows
    gi::emu::launch(GI_EMU_CONFIG::thermal_grid(rows, cols), GI_EMU_CONFIG::thermal_block(), [&] {
        GI_EMU_CONFIG::thermal_step(power.data(), in.data(), out.data(), rows, cols);
    }, order);
    return out;
}

const bool registered = [] {
    gi::emu::thermal_configs().push_back({GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
