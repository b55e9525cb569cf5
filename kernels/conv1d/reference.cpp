#include "conv1d/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::conv1d {

ConvProblem make_conv_problem(int n, std::uint64_t seed) {
    if (n < 1 || n > (1 << 28)) throw std::invalid_argument("conv1d: n " + std::to_string(n) + " out of range 1..2^28");
    ConvProblem p;
    p.n = n;
    gi::kernels::SplitMix64 rng(seed);
    const double pi = 3.14159265358979323846;
    const double f1 = rng.uniform(0.001, 0.01), f2 = rng.uniform(0.1, 0.4);
    p.signal.resize(static_cast<std::size_t>(n));
    for (int k = 0; k < n; ++k)
        p.signal[static_cast<std::size_t>(k)] =
            static_cast<float>(std::sin(2 * pi * f1 * k) + 0.3 * std::sin(2 * pi * f2 * k) + rng.uniform(-0.1, 0.1));
    // A Gaussian window, normalised.
    p.taps.resize(kTaps);
    double sum = 0;
    for (int k = 0; k < kTaps; ++k) sum += std::exp(-0.5 * ((k - kRadius) / 3.0) * ((k - kRadius) / 3.0));
    for (int k = 0; k < kTaps; ++k)
        p.taps[static_cast<std::size_t>(k)] =
            static_cast<float>(std::exp(-0.5 * ((k - kRadius) / 3.0) * ((k - kRadius) / 3.0)) / sum);
    return p;
}

std::vector<double> conv1d_reference(const ConvProblem& p) {
    std::vector<double> out(static_cast<std::size_t>(p.n));
    for (int i = 0; i < p.n; ++i) {
        double acc = 0;
        for (int k = -kRadius; k <= kRadius; ++k)
            if (i + k >= 0 && i + k < p.n)
                acc += double(p.taps[static_cast<std::size_t>(k + kRadius)]) * p.signal[static_cast<std::size_t>(i + k)];
        out[static_cast<std::size_t>(i)] = acc;
    }
    return out;
}

}  // namespace gi::conv1d
