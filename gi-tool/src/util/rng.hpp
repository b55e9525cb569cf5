#pragma once
// The one source of randomness for a run. It is passed by reference to every function that needs
// chance, never global, so the same seed gives the same run. std::mt19937_64's output sequence is
// fixed by the C++ standard, but the std:: distributions are not, so the draws below are our own.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gi {

class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}

    // A generator for part `index` of a piece of work seeded by one draw of the run's generator
    // (`seed`): each part's draws stay the same whatever the other parts draw, and the run's
    // generator moves by that one draw however the work goes. GP breeding gives each parent slot
    // one, so a parent that fails the sanitizer gate changes only its own slot's children.
    static Rng stream(std::uint64_t seed, std::uint64_t index);

    std::uint64_t next() { return engine_(); }

    // Uniform integer in [lo, hi] (inclusive). Requires lo <= hi.
    std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);

    // Uniform index in [0, n). Requires n > 0.
    std::size_t index(std::size_t n) { return static_cast<std::size_t>(uniform_int(0, static_cast<std::int64_t>(n) - 1)); }

    // Uniform double in [0, 1).
    double uniform01();

    bool chance(double probability) { return uniform01() < probability; }

    // Index drawn with probability proportional to weights[i]; weights must not all be zero.
    std::size_t weighted_index(const std::vector<double>& weights);

    // The engine's full state as text, and back, so a checkpointed run resumes on the same sequence.
    std::string save() const;
    void restore(const std::string& state);  // throws gi::Error on malformed text

private:
    std::mt19937_64 engine_;
};

}  // namespace gi
