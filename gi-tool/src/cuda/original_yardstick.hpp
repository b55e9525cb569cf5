#pragma once
// The batch's yardstick: evaluate() times the original before its variants and again after them
// (unless --original-once), and every variant in the batch is compared with the faster of the two.
// A microsecond kernel's timing is now and then a slow outlier (on the H200, dp_sweep's original
// at 0.0108 ms against its usual 0.0040-0.0047 ms): an inflated yardstick makes every variant of
// the batch look faster (38 "accepted", the best at a phantom 3.17x that then became the run's
// best), while a deflated one only rejects variants. So the lower median is kept. Pure.
#include "evaluate/evaluator.hpp"

namespace gi {

// Which of the two timings was slower than the other beyond noise, if either.
enum class SlowerTiming { Neither, Opening, Closing };

struct OriginalYardstick {
    Timing timing;        // the one kept, with its own spread
    SlowerTiming slower;  // whether the two disagreed beyond noise, and which was slower
};

// Disagreeing beyond noise: the medians differ by more than this many times their combined
// spread (sqrt(a^2 + b^2), a missing spread counting as zero), as acceptance measures noise.
inline constexpr double kOriginalDisagreementK = 3;

// The faster of the original's `opening` (before the variants) and `closing` (after them)
// timings; a timing that is not valid never wins over one that is.
OriginalYardstick original_yardstick(const Timing& opening, const Timing& closing);

}  // namespace gi
