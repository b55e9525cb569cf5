#include "util/median.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace gi {

double median_of(std::vector<double> values) {
    if (values.empty()) return NAN;
    const std::size_t middle = values.size() / 2;
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle), values.end());
    const double upper = values[middle];
    if (values.size() % 2 == 1) return upper;
    const double lower = *std::max_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(middle));
    return (lower + upper) / 2;
}

}  // namespace gi
