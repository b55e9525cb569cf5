#pragma once
// CPU side of the decimating FIR example: a test signal and a low-pass filter bank (the inputs)
// and a plain implementation of what fir_decimate.cu computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::fir {

struct FilterProblem {
    int outputs = 0;     // output samples per phase
    int decimation = 0;  // input samples per output sample
    int tap_count = 0;
    int phases = 0;
    std::vector<float> signal;  // outputs * decimation + tap_count samples
    std::vector<float> taps;    // tap_count windowed-sinc coefficients
};

// A sum of tones with a little noise, and a Hann-windowed low-pass at 1/decimation of the band.
// Throws std::invalid_argument for sizes outside 1..2^24 outputs, 1..64 decimation, 1..4096 taps,
// 1..tap_count phases.
FilterProblem make_filter_problem(int outputs, int decimation, int tap_count, int phases, std::uint64_t seed);

// Phase `phase`'s outputs, summed in the kernel's order (taps phase, phase + phases, ...).
std::vector<float> fir_decimate_reference(const FilterProblem& problem, int phase);

}  // namespace gi::fir
