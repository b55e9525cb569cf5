#pragma once
// CPU side of the thermal example: a chip floorplan (power per cell and a starting temperature
// field, the inputs) and a plain implementation of what thermal.cu computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::thermal {

// The compact thermal model's coefficients for a die of 16 x 16 x 0.5 mm of silicon cut into
// rows x cols cells, with the largest time step the explicit scheme is stable at, halved.
struct Coefficients {
    float step_over_cap = 0;
    float rx_inv = 0;
    float ry_inv = 0;
    float rz_inv = 0;
    float ambient = 0;
};

Coefficients coefficients_for(int rows, int cols);

struct Floorplan {
    int rows = 0;
    int cols = 0;
    std::vector<float> power;        // watts per cell, row after row
    std::vector<float> temperature;  // kelvin per cell
};

// Functional units (rectangles of high power density) over a low background, and a smooth
// starting temperature above ambient with a little noise. Throws std::invalid_argument unless
// 1 <= rows, cols <= 16384.
Floorplan make_floorplan(int rows, int cols, std::uint64_t seed);

// One explicit step, in the kernel's float operations: `out` gets the new temperatures of `in`.
void thermal_step_reference(const std::vector<float>& power, const std::vector<float>& in, std::vector<float>& out,
                            int rows, int cols, const Coefficients& k);

}  // namespace gi::thermal
