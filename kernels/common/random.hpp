#pragma once
// A tiny seeded generator for the example kernels' input generators. The kernels' drivers are
// built without gi_core (the device machine lacks its dependencies), so they cannot use gi::Rng;
// SplitMix64 with our own draws gives the same inputs from the same seed on every compiler.
#include <cstdint>

namespace gi::kernels {

class SplitMix64 {
public:
    explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Uniform in [0, 1) with 53 random bits.
    double uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    // Uniform in [lo, hi).
    double uniform(double lo, double hi) { return lo + (hi - lo) * uniform01(); }

    // Uniform integer in [lo, hi] (inclusive); the tiny modulo bias is irrelevant for test inputs.
    int uniform_int(int lo, int hi) {
        const std::uint64_t span = static_cast<std::uint64_t>(static_cast<std::int64_t>(hi) - lo + 1);
        return lo + static_cast<int>(next() % span);
    }

private:
    std::uint64_t state_;
};

}  // namespace gi::kernels
