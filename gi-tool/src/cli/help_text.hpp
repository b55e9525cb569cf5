#pragma once
// The layout of every command's --help: an option's names in a column of their own and its help
// wrapped beside them. Shared by the CLI11 commands' formatter (cli/command_line.hpp) and gi-apply's
// hand-written help, so both read alike.
#include <string>

namespace gi::cli {

inline constexpr std::size_t kHelpNameColumn = 28;  // where the help text starts
inline constexpr std::size_t kHelpWidth = 104;      // where it wraps

// How every command's --arch (and gi-apply's --also-compiled) may be written, for their help.
inline constexpr const char* kArchitectureSpellings = "90 or sm_90";

// "  --generations N           generations to run (default 50)\n": `names` ("--generations N") in
// the first column (on a line of their own when too wide), `help` wrapped by words beside them.
// A "\n" in `help` starts a new line in the help column.
std::string option_help_line(const std::string& names, const std::string& help);

}  // namespace gi::cli
