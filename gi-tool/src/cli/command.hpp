#pragma once
// Subcommands register themselves here (one file each: cmd_grammar.cpp, cmd_apply.cpp, ...), so
// adding one never touches main.cpp. Exit codes: 0 ok, 1 failure, 2 usage.
#include <string>
#include <vector>

namespace gi::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitUsage = 2;

struct Command {
    std::string name;     // "grammar"
    std::string summary;  // one line for `gi-tool --help`
    int (*run)(const std::vector<std::string>& args);  // args after the subcommand name
};

struct CommandRegistrar {
    explicit CommandRegistrar(Command command);
};

const std::vector<Command>& registered_commands();

}  // namespace gi::cli
