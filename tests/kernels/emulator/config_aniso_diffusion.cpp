// aniso_diffusion.cu compiled for the emulator under one configuration (see corpus_kernels.hpp).
#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "aniso_diffusion/aniso_diffusion.cu"
}  // namespace GI_EMU_CONFIG

namespace {

using gi::aniso_diffusion::Coefficients;

Coefficients coefficients(const std::vector<float>& image, int rows, int cols, float q0_squared, gi::emu::Order order) {
    const std::size_t n = image.size();
    // NaN: a value the kernel never writes shows.
    Coefficients k{std::vector<float>(n, NAN), std::vector<float>(n, NAN), std::vector<float>(n, NAN),
                   std::vector<float>(n, NAN), std::vector<float>(n, NAN), std::vector<float>(n, NAN)};
    gi::emu::launch(GI_EMU_CONFIG::diffusion_grid(rows, cols), GI_EMU_CONFIG::diffusion_block(), [&] {
        GI_EMU_CONFIG::diffusion_coefficients(image.data(), k.d_north.data(), k.d_south.data(), k.d_west.data(),
                                              k.d_east.data(), k.coefficient.data(), k.q_squared.data(), rows, cols,
                                              q0_squared);
    }, order);
    return k;
}

void update(std::vector<float>& image, const Coefficients& k, int rows, int cols, float lambda, gi::emu::Order order) {
    gi::emu::launch(GI_EMU_CONFIG::diffusion_grid(rows, cols), GI_EMU_CONFIG::diffusion_block(), [&] {
        GI_EMU_CONFIG::diffusion_update(image.data(), k.d_north.data(), k.d_south.data(), k.d_west.data(),
                                        k.d_east.data(), k.coefficient.data(), rows, cols, lambda);
    }, order);
}

const bool registered = [] {
    gi::emu::aniso_diffusion_configs().push_back({GI_EMU_SETTINGS, coefficients, update});
    return true;
}();

}  // namespace
