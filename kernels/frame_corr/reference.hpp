#pragma once
// CPU side of the frame correlation example: two signals (a tone in noise and its echo, delayed and
// quieter) and a plain implementation of what frame_corr.cu computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::corr {

struct CorrProblem {
    int frames = 0;
    int frame = 0;  // samples a frame
    std::vector<float> a, b;
};

// Throws std::invalid_argument for frames or a frame length outside 1..2^24, or more than 2^28
// samples in all.
CorrProblem make_corr_problem(int frames, int frame, std::uint64_t seed);

// Each frame's sum of products, in float and in the kernel's order.
std::vector<float> frame_corr_reference(const CorrProblem& problem);

}  // namespace gi::corr
