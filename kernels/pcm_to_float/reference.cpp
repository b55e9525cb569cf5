#include "pcm_to_float/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::pcm {

PcmProblem make_pcm_problem(int count, std::uint64_t seed) {
    if (count < 1 || count > (1 << 28))
        throw std::invalid_argument("pcm_to_float: count " + std::to_string(count) + " out of range 1..2^28");
    PcmProblem p;
    p.count = count;
    p.gain = 1.0f / 32768.0f;
    gi::kernels::SplitMix64 rng(seed);
    const double pi = 3.14159265358979323846;
    const double frequency = rng.uniform(0.001, 0.1), offset = rng.uniform(-500, 500);
    p.samples.resize(static_cast<std::size_t>(count));
    double sum = 0;
    for (int n = 0; n < count; ++n) {
        const double v = offset + 20000 * std::sin(2 * pi * frequency * n) + rng.uniform(-2000, 2000);
        p.samples[static_cast<std::size_t>(n)] = static_cast<short>(std::clamp(std::lround(v), -32768L, 32767L));
        sum += p.samples[static_cast<std::size_t>(n)];
    }
    p.dc_offset = static_cast<float>(sum / count);
    return p;
}

std::vector<float> pcm_to_float_reference(const PcmProblem& p) {
    std::vector<float> out(static_cast<std::size_t>(p.count));
    for (int n = 0; n < p.count; ++n)
        out[static_cast<std::size_t>(n)] = (p.samples[static_cast<std::size_t>(n)] - p.dc_offset) * p.gain;
    return out;
}

}  // namespace gi::pcm
