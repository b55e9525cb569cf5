#pragma once
// A small, strict argument reader: declared options only, so a typo is a usage error that names
// the argument instead of being ignored.
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gi::cli {

class Args {
public:
    // `value_options`: options taking a value ("--function"); may repeat. Declared "-I" and "-D"
    // are read as compilers read them: "-I DIR" or "-IDIR".
    // `switch_options`: options without a value ("--help").
    Args(const std::vector<std::string>& args, const std::vector<std::string>& value_options,
         const std::vector<std::string>& switch_options);

    bool has(const std::string& option) const;
    std::optional<std::string> value(const std::string& option) const;  // last occurrence
    std::vector<std::string> values(const std::string& option) const;    // every occurrence
    std::string required(const std::string& option) const;               // UsageError if absent
    const std::vector<std::string>& positional() const { return positional_; }


private:
    std::map<std::string, std::vector<std::string>> values_;
    std::vector<std::string> switches_;
    std::vector<std::string> positional_;
};

// `base` followed by `more`: a command's option list made of the shared ones and its own.
std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more);

}  // namespace gi::cli
