#pragma once
// The example kernels compiled for the CUDA emulator, one entry per gene configuration. Each
// config_*.cpp file is compiled once per configuration (kernels/CMakeLists.txt lists them, with the
// macro values as compile definitions) and registers itself here; the tests run every entry.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "emulator/cuda_emulator.hpp"
#include "bspline/reference.hpp"
#include "hydro/reference.hpp"
#include "stereo/reference.hpp"

namespace gi::emu {

struct StereoConfig {
    std::string name;  // the configuration's macro settings, e.g. "BLOCK_W=16 XHALO=1", or "defaults"
    // Runs stereo_kernel on the pair with the configuration's own launch geometry.
    std::function<stereo::DisparityMap(const stereo::GreyImage& left, const stereo::GreyImage& right, Order order)> run;
    // (block, grid) from the kernel file's own stereo_block() and stereo_grid().
    std::function<std::pair<dim3, dim3>(int width, int height)> geometry;
};

std::vector<StereoConfig>& stereo_configs();

struct BsplineConfig {
    std::string name;
    // Runs bspline_kernel on the case: 25 outputs per active block, in the kernel's order.
    std::function<std::vector<bspline::Float4>(const bspline::DeformationCase& c, int use_bspline, Order order)> run;
    std::function<std::pair<dim3, dim3>(int active_count)> geometry;
};

std::vector<BsplineConfig>& bspline_configs();

struct HydroConfig {
    std::string name;
    // One launch of hydro_stage: out = base + dt * divergence of the fluxes of `in`.
    std::function<hydro::State<float>(const hydro::State<float>& in, const hydro::State<float>& base, float dt_dx,
                                      float dt_dy, float gamma, hydro::Boundaries boundaries, Order order)>
        run;
    std::function<std::pair<dim3, dim3>(int nx, int ny)> geometry;
};

std::vector<HydroConfig>& hydro_configs();

}  // namespace gi::emu
