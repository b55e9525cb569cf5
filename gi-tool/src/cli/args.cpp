#include "cli/args.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace gi::cli {
namespace {
bool contains(const std::vector<std::string>& list, const std::string& item) {
    return std::find(list.begin(), list.end(), item) != list.end();
}
}  // namespace

Args::Args(const std::vector<std::string>& args, const std::vector<std::string>& value_options,
           const std::vector<std::string>& switch_options) {
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string arg = args[i];
        // Compiler-style -I DIR / -IDIR and -D NAME / -DNAME=V, where a command declares them.
        if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-' && contains(value_options, arg.substr(0, 2))) {
            const std::string option = arg.substr(0, 2);
            if (arg.size() > 2) {
                values_[option].push_back(arg.substr(2));
            } else {
                if (i + 1 >= args.size()) throw UsageError("option " + option + " needs a value");
                values_[option].push_back(args[++i]);
            }
            continue;
        }
        if (arg.size() > 2 && arg.rfind("--", 0) == 0) {
            std::string inline_value;
            bool has_inline = false;
            if (auto eq = arg.find('='); eq != std::string::npos) {
                inline_value = arg.substr(eq + 1);
                arg = arg.substr(0, eq);
                has_inline = true;
            }
            if (contains(switch_options, arg)) {
                if (has_inline) throw UsageError("option " + arg + " takes no value");
                switches_.push_back(arg);
            } else if (contains(value_options, arg)) {
                if (has_inline) {
                    values_[arg].push_back(inline_value);
                } else {
                    if (i + 1 >= args.size()) throw UsageError("option " + arg + " needs a value");
                    values_[arg].push_back(args[++i]);
                }
            } else {
                throw UsageError("unknown option '" + arg + "' (see --help for the options this command takes)");
            }
        } else {
            positional_.push_back(arg);
        }
    }
}

bool Args::has(const std::string& option) const {
    return contains(switches_, option) || values_.count(option) > 0;
}

std::optional<std::string> Args::value(const std::string& option) const {
    auto it = values_.find(option);
    if (it == values_.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::vector<std::string> Args::values(const std::string& option) const {
    auto it = values_.find(option);
    return it == values_.end() ? std::vector<std::string>{} : it->second;
}

std::string Args::required(const std::string& option) const {
    auto v = value(option);
    if (!v) throw UsageError("missing required option " + option);
    return *v;
}

std::vector<std::string> with(std::vector<std::string> base, const std::vector<std::string>& more) {
    base.insert(base.end(), more.begin(), more.end());
    return base;
}

}  // namespace gi::cli
