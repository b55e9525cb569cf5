#pragma once
// The median the timing code, minimisation and reports share.
#include <vector>

namespace gi {

// The middle value (the mean of the two middle ones for an even count); NaN for no values.
double median_of(std::vector<double> values);

}  // namespace gi
