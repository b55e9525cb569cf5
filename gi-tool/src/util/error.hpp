#pragma once
// Errors a person can act on: every message says what went wrong, where, and what to do.
#include <stdexcept>
#include <string>

namespace gi {

// Something the tool cannot do with the inputs it was given (bad file, bad genome, failed process).
// The CLI prints the message and exits with status 1.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The command line itself is wrong. The CLI prints the message and exits with status 2.
class UsageError : public Error {
public:
    using Error::Error;
};

// Formats "file:line: what (hint)" so editors and people can jump to the place.
// `hint` may be empty.
std::string located_message(const std::string& file, int line, const std::string& what,
                            const std::string& hint = {});

// Convenience: throws Error(located_message(...)).
[[noreturn]] void throw_at(const std::string& file, int line, const std::string& what,
                           const std::string& hint = {});

}  // namespace gi
