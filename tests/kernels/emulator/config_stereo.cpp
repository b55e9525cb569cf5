// stereo.cu compiled for the emulator under one gene configuration (see emulated_kernels.hpp).
// GI_EMU_CONFIG names the configuration; GI_EMU_SETTINGS is its macro settings as text.
#include <cstdint>

#include "emulator/cuda_emulator.hpp"
#include "emulator/emulated_kernels.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "stereo/stereo.cu"
}  // namespace GI_EMU_CONFIG

namespace {

gi::stereo::DisparityMap run(const gi::stereo::GreyImage& left, const gi::stereo::GreyImage& right,
                             gi::emu::Order order) {
    gi::stereo::DisparityMap map;
    map.width = left.width;
    map.height = left.height;
    // Poisoned, so pixels the kernel never writes stand out.
    map.disparity.assign(left.pixels.size(), -1234.0f);
    map.min_ssd.assign(left.pixels.size(), -1234);
    const gi::emu::dim3 grid = GI_EMU_CONFIG::stereo_grid(left.width, left.height);
    const gi::emu::dim3 block = GI_EMU_CONFIG::stereo_block();
    gi::emu::launch(grid, block, [&] {
        GI_EMU_CONFIG::stereo_kernel(left.pixels.data(), right.pixels.data(), map.disparity.data(),
                                     map.min_ssd.data(), left.width, left.height);
    }, order);
    return map;
}

const bool registered = [] {
    gi::emu::stereo_configs().push_back({GI_EMU_SETTINGS, run, [](int width, int height) {
        return std::make_pair(GI_EMU_CONFIG::stereo_block(), GI_EMU_CONFIG::stereo_grid(width, height));
    }});
    return true;
}();

}  // namespace
