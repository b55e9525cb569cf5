#pragma once
// CPU side of the channel gamma example: a sensor frame (rows x cols, values in [0, 1)) with one
// calibration gain a column (channel), and a plain implementation of what channel_gamma.cu
// computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::gamma {

struct GammaProblem {
    int rows = 0;
    int cols = 0;
    float gamma = 0;                  // 1/2.2: the gains are applied gamma-corrected
    std::vector<float> frame;         // rows x cols, row-major, in [0, 1)
    std::vector<float> channel_gain;  // one a column, in [0.5, 2]
};

// Throws std::invalid_argument naming the bad value for rows or cols outside 1..2^20, or
// rows * cols above 2^28.
GammaProblem make_gamma_problem(int rows, int cols, std::uint64_t seed);

// frame[r * cols + c] * powf(channel_gain[c], gamma) in float, as the kernel computes it.
std::vector<float> channel_gamma_reference(const GammaProblem& problem);

}  // namespace gi::gamma
