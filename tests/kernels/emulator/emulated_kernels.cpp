#include "emulator/emulated_kernels.hpp"

namespace gi::emu {

std::vector<StereoConfig>& stereo_configs() {
    static std::vector<StereoConfig> configs;
    return configs;
}

std::vector<BsplineConfig>& bspline_configs() {
    static std::vector<BsplineConfig> configs;
    return configs;
}

std::vector<HydroConfig>& hydro_configs() {
    static std::vector<HydroConfig> configs;
    return configs;
}

}  // namespace gi::emu
