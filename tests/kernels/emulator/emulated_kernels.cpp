#include "emulator/emulated_kernels.hpp"

namespace gi::emu {

std::vector<StereoConfig>& stereo_configs() {
    static std::vector<StereoConfig> configs;
    return configs;
}

}  // namespace gi::emu
