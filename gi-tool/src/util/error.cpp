#include "util/error.hpp"

namespace gi {

std::string located_message(const std::string& file, int line, const std::string& what,
                            const std::string& hint) {
    std::string message = file;
    if (line > 0) message += ":" + std::to_string(line);
    message += ": " + what;
    if (!hint.empty()) message += " (" + hint + ")";
    return message;
}

void throw_at(const std::string& file, int line, const std::string& what, const std::string& hint) {
    throw Error(located_message(file, line, what, hint));
}

}  // namespace gi
