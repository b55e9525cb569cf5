#include "fir_decimate/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::fir {

FilterProblem make_filter_problem(int outputs, int decimation, int tap_count, int phases, std::uint64_t seed) {
    if (outputs < 1 || outputs > (1 << 24) || decimation < 1 || decimation > 64 || tap_count < 1 || tap_count > 4096 ||
        phases < 1 || phases > tap_count)
        throw std::invalid_argument("fir_decimate: sizes out of range (outputs " + std::to_string(outputs) +
                                    ", decimation " + std::to_string(decimation) + ", taps " +
                                    std::to_string(tap_count) + ", phases " + std::to_string(phases) + ")");
    FilterProblem p;
    p.outputs = outputs;
    p.decimation = decimation;
    p.tap_count = tap_count;
    p.phases = phases;
    gi::kernels::SplitMix64 rng(seed);
    const double pi = 3.14159265358979323846;
    const std::size_t length = static_cast<std::size_t>(outputs) * decimation + tap_count;
    p.signal.resize(length);
    const double f1 = rng.uniform(0.001, 0.05), f2 = rng.uniform(0.1, 0.4);
    for (std::size_t n = 0; n < length; ++n)
        p.signal[n] = static_cast<float>(std::sin(2 * pi * f1 * n) + 0.5 * std::sin(2 * pi * f2 * n) +
                                         0.01 * rng.uniform(-1, 1));
    p.taps.resize(tap_count);
    const double cutoff = 0.5 / decimation;
    for (int t = 0; t < tap_count; ++t) {
        const double m = t - (tap_count - 1) / 2.0;
        const double sinc = m == 0 ? 2 * cutoff : std::sin(2 * pi * cutoff * m) / (pi * m);
        const double hann = tap_count > 1 ? 0.5 - 0.5 * std::cos(2 * pi * t / (tap_count - 1)) : 1.0;
        p.taps[t] = static_cast<float>(sinc * hann);
    }
    return p;
}

std::vector<float> fir_decimate_reference(const FilterProblem& p, int phase) {
    std::vector<float> out(static_cast<std::size_t>(p.outputs));
    for (int i = 0; i < p.outputs; ++i) {
        const float* x = p.signal.data() + static_cast<std::size_t>(i) * p.decimation;
        float acc = 0.0f;
        for (int t = phase; t < p.tap_count; t += p.phases) acc += p.taps[t] * x[t];
        out[static_cast<std::size_t>(i)] = acc;
    }
    return out;
}

}  // namespace gi::fir
