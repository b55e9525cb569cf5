#include "util/format.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>

namespace gi {

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string fixed_or_dash(double value, int digits) { return std::isfinite(value) ? fixed(value, digits) : "-"; }

std::string file_name_part(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
    return out;
}

}  // namespace gi
