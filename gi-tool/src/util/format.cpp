#include "util/format.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>

#include "util/text_rule.hpp"

namespace gi {

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string significant(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
    return buffer;
}

std::string exact(double value) {
    if (std::isnan(value)) return "nan";
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return significant(value, 17);
}

std::string fixed_or_dash(double value, int digits) { return std::isfinite(value) ? fixed(value, digits) : "-"; }

std::string file_name_part(const std::string& name) {
    std::string out = name;
    for (char& c : out)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) c = '_';
    return out;
}

std::string excerpt(const std::string& text, std::size_t max_bytes) {
    const std::size_t shown = std::min(text.size(), max_bytes);
    std::string out = printable(std::string_view(text).substr(0, shown));
    if (shown < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
    return out;
}

std::string join(const std::vector<std::string>& items, const std::string& separator) {
    std::string text;
    for (const std::string& item : items) {
        if (!text.empty()) text += separator;
        text += item;
    }
    return text;
}

}  // namespace gi
