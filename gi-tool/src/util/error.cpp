#include "util/error.hpp"

namespace gi {

std::string located_message(const std::string& file, int line, const std::string& what,
                            const std::string& hint) {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on ":" + std::to_string(...)
    // here, and that warning reached every user building gi-tool.
    std::string message = file;
    if (line > 0) message.append(":").append(std::to_string(line));
    message.append(": ").append(what);
    if (!hint.empty()) message.append(" (").append(hint).append(")");
    return message;
}

void throw_at(const std::string& file, int line, const std::string& what, const std::string& hint) {
    throw Error(located_message(file, line, what, hint));
}

}  // namespace gi
