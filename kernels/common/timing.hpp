#pragma once
// Robust summary of repeated kernel timings for the drivers' one-line reports.
#include <algorithm>
#include <cmath>
#include <vector>

namespace gi::kernels {

struct TimingSummary {
    double median_ms = 0;
    double spread_ms = 0;  // 1.4826 x median absolute deviation
    double min_ms = 0;
    int repetitions = 0;
};

inline double median_of(std::vector<double> values) {
    if (values.empty()) return NAN;
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

inline TimingSummary summarise(const std::vector<double>& samples_ms) {
    TimingSummary s;
    s.repetitions = static_cast<int>(samples_ms.size());
    if (samples_ms.empty()) return s;
    s.median_ms = median_of(samples_ms);
    std::vector<double> deviations;
    for (double v : samples_ms) deviations.push_back(std::abs(v - s.median_ms));
    s.spread_ms = 1.4826 * median_of(deviations);
    s.min_ms = *std::min_element(samples_ms.begin(), samples_ms.end());
    return s;
}

}  // namespace gi::kernels
