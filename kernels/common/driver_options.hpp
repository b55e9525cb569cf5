#pragma once
// Command-line options of the example drivers: "--name value" pairs from a declared list, so a typo
// is a usage error naming the argument. Header-only: the drivers link nothing of gi-tool.
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace gi::kernels {

class DriverOptions {
public:
    // `defaults`: every accepted option name (without "--") and its default value.
    DriverOptions(int argc, char** argv, std::map<std::string, long long> defaults, std::string usage)
        : values_(std::move(defaults)), usage_(std::move(usage)) {
        for (int i = 1; i < argc; ++i) {
            const std::string arg = argv[i];
            if (arg == "--help" || arg == "-h") {
                help_ = true;
                continue;
            }
            if (arg.rfind("--", 0) != 0 || values_.count(arg.substr(2)) == 0) {
                throw UsageError("unknown argument '" + arg + "'\n" + usage_);
            }
            if (i + 1 >= argc) throw UsageError("option '" + arg + "' needs a value\n" + usage_);
            const std::string text = argv[++i];
            char* end = nullptr;
            const long long value = std::strtoll(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0') {
                throw UsageError("option '" + arg + "' needs an integer, got '" + text + "'\n" + usage_);
            }
            values_[arg.substr(2)] = value;
        }
    }

    bool help() const { return help_; }
    const std::string& usage() const { return usage_; }

    // The option's value; UsageError naming it when outside [min, max].
    long long get(const std::string& name, long long min, long long max) const {
        const long long value = values_.at(name);
        if (value < min || value > max) {
            throw UsageError("option '--" + name + "' is " + std::to_string(value) + "; it must be in " +
                             std::to_string(min) + ".." + std::to_string(max) + "\n" + usage_);
        }
        return value;
    }

private:
    std::map<std::string, long long> values_;
    std::string usage_;
    bool help_ = false;
};

}  // namespace gi::kernels
