#include "util/rng.hpp"

#include <sstream>

#include "util/error.hpp"

namespace gi {

Rng Rng::stream(std::uint64_t seed, std::uint64_t index) {
    // splitmix64's finaliser: neighbouring indexes give unrelated engine seeds.
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (index + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return Rng(z ^ (z >> 31));
}

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
    if (lo > hi) throw Error("Rng::uniform_int: empty range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    if (span == 0) return static_cast<std::int64_t>(next());  // the whole 64-bit range
    // Rejection sampling keeps every value equally likely (no modulo bias).
    const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % span);
    std::uint64_t draw = next();
    while (draw >= limit) draw = next();
    return lo + static_cast<std::int64_t>(draw % span);
}

double Rng::uniform01() {
    // 53 random bits fill a double's mantissa exactly.
    return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0);
}

std::size_t Rng::weighted_index(const std::vector<double>& weights) {
    double total = 0;
    for (double w : weights) total += w > 0 ? w : 0;
    if (total <= 0) throw Error("Rng::weighted_index: all weights are zero");
    double target = uniform01() * total;
    for (std::size_t i = 0; i < weights.size(); ++i) {
        if (weights[i] <= 0) continue;
        if (target < weights[i]) return i;
        target -= weights[i];
    }
    // Rounding can leave target a hair above the last positive weight.
    for (std::size_t i = weights.size(); i-- > 0;)
        if (weights[i] > 0) return i;
    return 0;
}

std::string Rng::save() const {
    std::ostringstream out;
    out << engine_;
    return out.str();
}

void Rng::restore(const std::string& state) {
    std::istringstream in(state);
    std::mt19937_64 engine;
    in >> engine;
    if (!in) throw Error("random generator state is malformed (the checkpoint file may be truncated)");
    engine_ = engine;
}

}  // namespace gi
