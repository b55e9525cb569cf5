#pragma once
// CPU side of the PCM conversion example: a recording (a tone, noise and a DC offset, in 16-bit
// samples) and a plain implementation of what pcm_to_float.cu computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::pcm {

struct PcmProblem {
    int count = 0;
    float gain = 0;       // 1/32768: full scale to [-1, 1)
    float dc_offset = 0;  // the recording's mean, in sample units
    std::vector<short> samples;
};

// Throws std::invalid_argument for a count outside 1..2^28.
PcmProblem make_pcm_problem(int count, std::uint64_t seed);

// (sample - dc_offset) * gain in float, as the kernel computes it.
std::vector<float> pcm_to_float_reference(const PcmProblem& problem);

}  // namespace gi::pcm
