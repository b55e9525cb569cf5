#include "util/format.hpp"

#include <cmath>
#include <cstdio>

namespace gi {

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string fixed_or_dash(double value, int digits) { return std::isfinite(value) ? fixed(value, digits) : "-"; }

}  // namespace gi
