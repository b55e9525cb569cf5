#include "channel_gamma/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::gamma {

GammaProblem make_gamma_problem(int rows, int cols, std::uint64_t seed) {
    if (rows < 1 || rows > (1 << 20))
        throw std::invalid_argument("channel_gamma: rows " + std::to_string(rows) + " out of range 1..2^20");
    if (cols < 1 || cols > (1 << 20))
        throw std::invalid_argument("channel_gamma: cols " + std::to_string(cols) + " out of range 1..2^20");
    const long long elements = static_cast<long long>(rows) * cols;
    if (elements > (1LL << 28))
        throw std::invalid_argument("channel_gamma: rows * cols " + std::to_string(rows) + " x " +
                                    std::to_string(cols) + " = " + std::to_string(elements) +
                                    " above 2^28");
    GammaProblem p;
    p.rows = rows;
    p.cols = cols;
    p.gamma = 1.0f / 2.2f;
    gi::kernels::SplitMix64 rng(seed);
    p.channel_gain.resize(static_cast<std::size_t>(cols));
    for (float& gain : p.channel_gain) gain = static_cast<float>(rng.uniform(0.5, 2.0));
    p.frame.resize(static_cast<std::size_t>(elements));
    for (float& value : p.frame) {
        // A double just below 1 may round up to 1.0f: keep the frame in [0, 1).
        value = static_cast<float>(rng.uniform01());
        if (value >= 1.0f) value = std::nextafter(1.0f, 0.0f);
    }
    return p;
}

std::vector<float> channel_gamma_reference(const GammaProblem& p) {
    std::vector<float> out(p.frame.size());
    for (int c = 0; c < p.cols; ++c) {
        const float g = powf(p.channel_gain[static_cast<std::size_t>(c)], p.gamma);
        for (int r = 0; r < p.rows; ++r) {
            const std::size_t n = static_cast<std::size_t>(r) * static_cast<std::size_t>(p.cols) + static_cast<std::size_t>(c);
            out[n] = p.frame[n] * g;
        }
    }
    return out;
}

}  // namespace gi::gamma
