#include "frame_corr/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::corr {

CorrProblem make_corr_problem(int frames, int frame, std::uint64_t seed) {
    if (frames < 1 || frames > (1 << 24))
        throw std::invalid_argument("frame_corr: frames " + std::to_string(frames) + " out of range 1..2^24");
    if (frame < 1 || frame > (1 << 24))
        throw std::invalid_argument("frame_corr: frame " + std::to_string(frame) + " out of range 1..2^24");
    if (static_cast<long long>(frames) * frame > (1LL << 28))
        throw std::invalid_argument("frame_corr: " + std::to_string(frames) + " frames of " + std::to_string(frame) +
                                    " samples is more than 2^28 samples");
    CorrProblem p;
    p.frames = frames;
    p.frame = frame;
    const std::size_t n = static_cast<std::size_t>(frames) * static_cast<std::size_t>(frame);
    gi::kernels::SplitMix64 rng(seed);
    const double pi = 3.14159265358979323846;
    const double frequency = rng.uniform(0.001, 0.05);
    const int delay = static_cast<int>(rng.uniform(1, 64));
    p.a.resize(n);
    p.b.resize(n);
    for (std::size_t k = 0; k < n; ++k) p.a[k] = static_cast<float>(std::sin(2 * pi * frequency * double(k)) + rng.uniform(-0.3, 0.3));
    for (std::size_t k = 0; k < n; ++k)
        p.b[k] = static_cast<float>((k >= static_cast<std::size_t>(delay) ? 0.4 * p.a[k - delay] : 0.0) + rng.uniform(-0.1, 0.1));
    return p;
}

std::vector<float> frame_corr_reference(const CorrProblem& p) {
    std::vector<float> out(static_cast<std::size_t>(p.frames));
    for (int f = 0; f < p.frames; ++f) {
        float sum = 0.0f;
        const std::size_t begin = static_cast<std::size_t>(f) * static_cast<std::size_t>(p.frame);
        for (std::size_t k = begin; k < begin + static_cast<std::size_t>(p.frame); ++k) sum += p.a[k] * p.b[k];
        out[static_cast<std::size_t>(f)] = sum;
    }
    return out;
}

}  // namespace gi::corr
