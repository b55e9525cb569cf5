#include "history/score.hpp"

#include <cmath>

namespace gi {

Score measurement_score(const Measurement& m) {
    Score score;
    score.measurements = 1;
    if (m.result.status != EvalStatus::Ok || !m.result.time.valid() || !m.original.valid() ||
        !(m.result.time.median_ms > 0) || !(m.original.median_ms > 0))
        return score;
    score.mean = m.original.median_ms / m.result.time.median_ms;
    auto relative = [](const Timing& t) { return std::isfinite(t.spread_ms) ? t.spread_ms / t.median_ms : 0.0; };
    const double ro = relative(m.original), rv = relative(m.result.time);
    score.deviation = score.mean * std::sqrt(ro * ro + rv * rv);
    return score;
}

Score combined_score(const std::vector<Measurement>& measurements) {
    Score total;
    if (measurements.empty()) return total;
    std::vector<Score> each;
    for (const Measurement& m : measurements) each.push_back(measurement_score(m));
    const double n = static_cast<double>(each.size());
    double sum = 0, noise = 0;
    for (const Score& s : each) {
        sum += s.mean;
        noise += s.deviation * s.deviation;
    }
    total.mean = sum / n;
    double variance = 0;
    if (each.size() > 1) {
        for (const Score& s : each) variance += (s.mean - total.mean) * (s.mean - total.mean);
        variance /= n - 1;
    }
    total.deviation = std::sqrt(noise / n + variance);
    total.measurements = static_cast<int>(each.size());
    return total;
}

}  // namespace gi
