#pragma once
// The rule that decides whether a variant may be a parent (seeds 000 8.14.6, 001 3.9): it ran, it
// has no more error than allowed, and it beat the original on the same case by at least the
// measured noise: original.median - variant.median >= k * sqrt(spread_o^2 + spread_v^2), and > 0.
#include "evaluate/evaluator.hpp"

namespace gi {

struct AcceptanceRule {
    double max_error = 0;  // --max-error
    double noise_k = 1;    // --noise-k
};


bool is_accepted(const EvalResult& result, const Timing& original, const AcceptanceRule& rule);

// original / variant when both timings are valid and positive, else 0.
double speedup(const Timing& original, const Timing& variant);

// True when `candidate`'s median is slower than `reference`'s by more than k times the combined
// uncertainty of the two medians, sqrt(candidate_error^2 + reference_error^2) (in ms; a missing
// one, NaN, counts as zero). The errors are those of the medians (minimise.hpp's median_error), not
// the spreads of single samples, which ask far too much of a median of many (issue: minimisation
// on microsecond kernels removed every gain under about 40%).
bool slower_beyond_uncertainty(const Timing& candidate, double candidate_error_ms, const Timing& reference,
                               double reference_error_ms, double k);

}  // namespace gi
