#pragma once
// CPU side of the anisotropic diffusion example: a synthetic ultrasound image (the input), the
// speckle scale q0^2 the host computes between iterations, and plain implementations of the two
// kernels of aniso_diffusion.cu (the oracle).
#include <cstdint>
#include <vector>

namespace gi::aniso_diffusion {

// Organs and cysts of different echogenicity under multiplicative (Rayleigh) speckle, as intensities
// 0..255, stored as exp(I / 255) (SRAD works on the exponentiated image): values in [1, e]. Throws
// std::invalid_argument unless 2 <= rows, cols <= 16384.
std::vector<float> make_ultrasound_image(int rows, int cols, std::uint64_t seed);

// q0^2 = variance / mean^2 over the speckle region, the top-left corner of up to 64 x 64 pixels
// (the generator keeps it homogeneous).
float speckle_scale(const std::vector<float>& image, int rows, int cols);

// The six outputs of diffusion_coefficients, one value per pixel each.
struct Coefficients {
    std::vector<float> d_north, d_south, d_west, d_east, coefficient, q_squared;
};

// diffusion_coefficients in the kernel's float operations.
Coefficients coefficients_reference(const std::vector<float>& image, int rows, int cols, float q0_squared);

// diffusion_update in the kernel's float operations: `image` moves in place.
void update_reference(std::vector<float>& image, const Coefficients& k, int rows, int cols, float lambda);

}  // namespace gi::aniso_diffusion
