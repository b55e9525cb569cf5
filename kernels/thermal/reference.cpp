#include "thermal/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::thermal {

namespace {
constexpr double kChipWidth = 0.016;     // m
constexpr double kChipHeight = 0.016;    // m
constexpr double kThickness = 0.0005;    // m
constexpr double kConductivity = 100.0;  // W / (m K), silicon
constexpr double kHeatCapacity = 1.75e6; // J / (m^3 K), silicon
constexpr double kAmbient = 318.15;      // K
}  // namespace

Coefficients coefficients_for(int rows, int cols) {
    const double cell_w = kChipWidth / cols, cell_h = kChipHeight / rows;
    const double cap = kHeatCapacity * kThickness * cell_w * cell_h;
    const double rx = cell_w / (kConductivity * kThickness * cell_h);
    const double ry = cell_h / (kConductivity * kThickness * cell_w);
    const double rz = kThickness / (kConductivity * cell_w * cell_h);
    // Stable while step / cap * (2/Rx + 2/Ry + 1/Rz) <= 1.
    const double conductance = 2 / rx + 2 / ry + 1 / rz;
    const double step = 0.5 * cap / conductance;
    return Coefficients{static_cast<float>(step / cap), static_cast<float>(1 / rx), static_cast<float>(1 / ry),
                        static_cast<float>(1 / rz), static_cast<float>(kAmbient)};
}

Floorplan make_floorplan(int rows, int cols, std::uint64_t seed) {
    if (rows < 1 || cols < 1 || rows > 16384 || cols > 16384) {
        throw std::invalid_argument("thermal floorplan of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                    " cells: each side must be 1..16384");
    }
    gi::kernels::SplitMix64 rng(seed * 0x9E3779B97F4A7C15ull + 17);
    Floorplan f{rows, cols, std::vector<float>(static_cast<std::size_t>(rows) * cols),
                std::vector<float>(static_cast<std::size_t>(rows) * cols)};
    // A 100 W die: 1e-4 W a cell on average at 1024 x 1024, units ten times denser.
    const double cell_area = 1.0 / (static_cast<double>(rows) * cols);
    for (float& p : f.power) p = static_cast<float>(5.0 * cell_area * rng.uniform(0.5, 1.5));
    const int units = 6 + rng.uniform_int(0, 4);
    for (int u = 0; u < units; ++u) {
        const int r0 = rng.uniform_int(0, rows - 1), c0 = rng.uniform_int(0, cols - 1);
        const int r1 = std::min(rows, r0 + 1 + rng.uniform_int(0, rows / 4)), c1 = std::min(cols, c0 + 1 + rng.uniform_int(0, cols / 4));
        const double density = rng.uniform(50.0, 500.0) * cell_area;
        for (int r = r0; r < r1; ++r)
            for (int c = c0; c < c1; ++c) f.power[static_cast<std::size_t>(r) * cols + c] = static_cast<float>(density);
    }
    const double phase = rng.uniform(0, 6.283);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const double x = (c + 0.5) / cols, y = (r + 0.5) / rows;
            const double smooth = 15 + 10 * std::sin(3 * x + phase) * std::cos(2 * y - phase);
            f.temperature[static_cast<std::size_t>(r) * cols + c] =
                static_cast<float>(kAmbient + smooth + rng.uniform(-0.5, 0.5));
        }
    return f;
}

void thermal_step_reference(const std::vector<float>& power, const std::vector<float>& in, std::vector<float>& out,
                            int rows, int cols, const Coefficients& k) {
    out.resize(in.size());
    const auto at = [&](int r, int c) {
        return in[static_cast<std::size_t>(std::clamp(r, 0, rows - 1)) * cols + std::clamp(c, 0, cols - 1)];
    };
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const float t = at(r, c);
            const float north_south = at(r - 1, c) + at(r + 1, c) - 2.0f * t;
            const float east_west = at(r, c - 1) + at(r, c + 1) - 2.0f * t;
            const std::size_t i = static_cast<std::size_t>(r) * cols + c;
            const float flow = power[i] + north_south * k.ry_inv + east_west * k.rx_inv + (k.ambient - t) * k.rz_inv;
            out[i] = t + k.step_over_cap * flow;
        }
}

}  // namespace gi::thermal
