#pragma once
// The example kernels compiled for the CUDA emulator, one entry per gene configuration. Each
// config_*.cpp file is compiled once per configuration (kernels/CMakeLists.txt lists them, with the
// macro values as compile definitions) and registers itself here; the tests run every entry.
#include <functional>
#include <string>
#include <vector>

#include "emulator/cuda_emulator.hpp"
#include "stereo/reference.hpp"

namespace gi::emu {

struct StereoConfig {
    std::string name;  // the configuration's macro settings, e.g. "BLOCK_W=16 XHALO=1"
    // Runs stereo_kernel on the pair with the configuration's own launch geometry.
    std::function<stereo::DisparityMap(const stereo::GreyImage& left, const stereo::GreyImage& right, Order order)> run;
};

std::vector<StereoConfig>& stereo_configs();

}  // namespace gi::emu
