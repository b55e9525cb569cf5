#include "fitness/acceptance.hpp"

#include <cmath>

namespace gi {
namespace {
double finite_or_zero(double value) { return std::isfinite(value) ? value : 0.0; }
}  // namespace

bool is_accepted(const EvalResult& result, const Timing& original, const AcceptanceRule& rule) {
    if (result.status != EvalStatus::Ok || !result.time.valid() || !original.valid()) return false;
    if (!(result.error <= rule.max_error)) return false;
    const double gain = original.median_ms - result.time.median_ms;
    return gain > 0 && gain >= rule.noise_k * combined_spread(original, result.time);
}

double speedup(const Timing& original, const Timing& variant) {
    if (!original.valid() || !variant.valid() || variant.median_ms <= 0) return 0;
    return original.median_ms / variant.median_ms;
}

bool slower_beyond_uncertainty(const Timing& candidate, double candidate_error_ms, const Timing& reference,
                               double reference_error_ms, double k) {
    if (!candidate.valid()) return true;  // nothing measured cannot show it is as fast
    const double ec = finite_or_zero(candidate_error_ms), er = finite_or_zero(reference_error_ms);
    return candidate.median_ms - reference.median_ms > k * std::sqrt(ec * ec + er * er);
}

}  // namespace gi
