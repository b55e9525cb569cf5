#include "aniso_diffusion/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::aniso_diffusion {

namespace {
constexpr int kSpeckleRegion = 64;
}

std::vector<float> make_ultrasound_image(int rows, int cols, std::uint64_t seed) {
    if (rows < 2 || cols < 2 || rows > 16384 || cols > 16384) {
        throw std::invalid_argument("ultrasound image of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                    " pixels: each side must be 2..16384");
    }
    gi::kernels::SplitMix64 rng(seed * 0xD1B54A32D192ED03ull + 5);
    struct Ellipse {
        double cx, cy, rx, ry, level;
    };
    // Kept out of the speckle region (top-left corner) so that it stays homogeneous tissue.
    std::vector<Ellipse> shapes;
    const int count = 4 + rng.uniform_int(0, 4);
    for (int s = 0; s < count; ++s) {
        shapes.push_back({rng.uniform(0.35, 0.9) * cols, rng.uniform(0.35, 0.9) * rows, rng.uniform(0.05, 0.2) * cols,
                          rng.uniform(0.05, 0.2) * rows, s % 3 == 0 ? 20.0 : rng.uniform(110.0, 200.0)});
    }
    std::vector<float> image(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            double level = 80;  // tissue
            for (const Ellipse& e : shapes) {
                const double dx = (c - e.cx) / e.rx, dy = (r - e.cy) / e.ry;
                if (dx * dx + dy * dy <= 1) level = e.level;
            }
            // Rayleigh speckle with mean 1.
            const double u = std::max(rng.uniform01(), 1e-12);
            const double speckle = std::sqrt(-2 * std::log(u)) / std::sqrt(3.14159265358979 / 2);
            const double intensity = std::clamp(level * speckle, 0.0, 255.0);
            image[static_cast<std::size_t>(r) * cols + c] = static_cast<float>(std::exp(intensity / 255.0));
        }
    return image;
}

float speckle_scale(const std::vector<float>& image, int rows, int cols) {
    const int r_end = std::min(rows, kSpeckleRegion), c_end = std::min(cols, kSpeckleRegion);
    double sum = 0, sum2 = 0;
    for (int r = 0; r < r_end; ++r)
        for (int c = 0; c < c_end; ++c) {
            const double v = image[static_cast<std::size_t>(r) * cols + c];
            sum += v;
            sum2 += v * v;
        }
    const double n = static_cast<double>(r_end) * c_end;
    const double mean = sum / n;
    const double variance = sum2 / n - mean * mean;
    return static_cast<float>(variance / (mean * mean));
}

Coefficients coefficients_reference(const std::vector<float>& image, int rows, int cols, float q0_squared) {
    const std::size_t n = image.size();
    Coefficients k{std::vector<float>(n), std::vector<float>(n), std::vector<float>(n),
                   std::vector<float>(n), std::vector<float>(n), std::vector<float>(n)};
    const auto at = [&](int r, int c) {
        return image[static_cast<std::size_t>(std::clamp(r, 0, rows - 1)) * cols + std::clamp(c, 0, cols - 1)];
    };
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const float centre = at(r, c);
            const float dn = at(r - 1, c) - centre, ds = at(r + 1, c) - centre;
            const float dw = at(r, c - 1) - centre, de = at(r, c + 1) - centre;
            const float g2 = (dn * dn + ds * ds + dw * dw + de * de) / (centre * centre);
            const float l = (dn + ds + dw + de) / centre;
            const float num = 0.5f * g2 - 0.0625f * (l * l);
            float den = 1.0f + 0.25f * l;
            const float q2 = num / (den * den);
            den = (q2 - q0_squared) / (q0_squared * (1.0f + q0_squared));
            const float cval = std::clamp(1.0f / (1.0f + den), 0.0f, 1.0f);
            const std::size_t i = static_cast<std::size_t>(r) * cols + c;
            k.d_north[i] = dn;
            k.d_south[i] = ds;
            k.d_west[i] = dw;
            k.d_east[i] = de;
            k.coefficient[i] = cval;
            k.q_squared[i] = q2;
        }
    return k;
}

void update_reference(std::vector<float>& image, const Coefficients& k, int rows, int cols, float lambda) {
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const std::size_t i = static_cast<std::size_t>(r) * cols + c;
            const float c_here = k.coefficient[i];
            const float c_south = k.coefficient[static_cast<std::size_t>(std::min(r + 1, rows - 1)) * cols + c];
            const float c_east = k.coefficient[static_cast<std::size_t>(r) * cols + std::min(c + 1, cols - 1)];
            const float divergence = c_here * k.d_north[i] + c_south * k.d_south[i] + c_here * k.d_west[i] +
                                     c_east * k.d_east[i];
            image[i] = image[i] + 0.25f * lambda * divergence;
        }
}

}  // namespace gi::aniso_diffusion
