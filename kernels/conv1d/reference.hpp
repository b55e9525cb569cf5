#pragma once
// CPU side of the 1-D convolution example: a signal (two tones and noise) and a normalised
// 17-tap smoothing filter, and a plain implementation of what conv1d.cu computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::conv1d {

constexpr int kRadius = 8;  // conv1d.cu's RADIUS
constexpr int kTaps = 2 * kRadius + 1;

struct ConvProblem {
    int n = 0;
    std::vector<float> signal;
    std::vector<float> taps;  // kTaps, summing to 1
};

// Throws std::invalid_argument for an n outside 1..2^28.
ConvProblem make_conv_problem(int n, std::uint64_t seed);

// out[i] = sum over k in -R..R of taps[k + R] * signal[i + k], zero outside the signal; in
// double, so the kernel's float sums differ by their rounding only.
std::vector<double> conv1d_reference(const ConvProblem& problem);

}  // namespace gi::conv1d
