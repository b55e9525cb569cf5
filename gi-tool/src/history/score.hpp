#pragma once
// The score of a program, as Paraiso's annealing and the history database use it (seed 003 3.2):
// higher is better, with a mean and a deviation so a lucky measurement does not pass for a real
// gain. The score of one measurement is the speedup over the original kernel measured on the same
// case (so measurements on different cases are comparable); a failed program scores 0.
#include <vector>

#include "evaluate/evaluator.hpp"

namespace gi {

struct Score {
    double mean = 0;       // mean speedup over the measurements
    double deviation = 0;  // its uncertainty: timing noise of each measurement and case-to-case spread
    int measurements = 0;
};

// One measurement of a program: its result and the original's timing next to it.
struct Measurement {
    EvalResult result;
    Timing original;
};

// Speedup original/variant and its deviation from the two robust spreads (first-order error
// propagation; a missing spread counts as 0). {0, 0} for a failure or an untimed result.
Score measurement_score(const Measurement& measurement);

// Mean of the measurements' speedups; deviation sqrt(mean of their squared deviations + the sample
// variance of the speedups). {0, 0, 0} when empty.
Score combined_score(const std::vector<Measurement>& measurements);

}  // namespace gi
