// gi-tool: genetic improvement of CUDA kernels. Dispatches to the registered subcommands.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "compile/nvrtc_server.hpp"
#include "util/error.hpp"
#include "util/text_rule.hpp"

namespace gi::cli {

namespace {
std::vector<Command>& mutable_commands() {
    static std::vector<Command> commands;
    return commands;
}

void print_usage(std::ostream& out) {
    out << "gi-tool " << GI_OPTIMIZE_VERSION << ": genetic improvement of CUDA kernels\n\n"
        << "usage: gi-tool <command> [options]    (gi-tool <command> --help for each)\n\ncommands:\n";
    for (const Command& command : registered_commands())
        out << fmt::format("  {:<9} {}\n", command.name, command.summary);
    out << "\nexit status: 0 ok, 1 failure, 2 usage error\n";
}
}  // namespace

CommandRegistrar::CommandRegistrar(Command command) { mutable_commands().push_back(std::move(command)); }

const std::vector<Command>& registered_commands() { return mutable_commands(); }

}  // namespace gi::cli

int main(int argc, char** argv) {
    using namespace gi::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        print_usage(std::cout);
        return args.empty() ? kExitUsage : kExitOk;
    }
    // Internal: the cuda evaluator's NVRTC compiles run in such processes (cuda/nvrtc_processes.hpp).
    if (args[0] == "--nvrtc-server") return gi::serve_nvrtc_compiles();
    if (args[0] == "--version") {
        std::cout << "gi-tool " << GI_OPTIMIZE_VERSION << "\n";
        return kExitOk;
    }
    for (const Command& command : registered_commands()) {
        if (command.name != args[0]) continue;
        try {
            return command.run(std::vector<std::string>(args.begin() + 1, args.end()));
        } catch (const gi::UsageError& e) {
            // Messages quote inputs (entry fields, file names): printable_message() keeps their
            // escape sequences off the terminal.
            std::cerr << "gi-tool " << command.name << ": " << gi::printable_message(e.what()) << "\n"
                      << "(run 'gi-tool " << command.name << " --help' for usage)\n";
            return kExitUsage;
        } catch (const std::exception& e) {
            std::cerr << "gi-tool " << command.name << ": error: " << gi::printable_message(e.what()) << "\n";
            return kExitFailure;
        }
    }
    std::cerr << "gi-tool: unknown command '" << gi::printable(args[0]) << "'\n\n";
    print_usage(std::cerr);
    return kExitUsage;
}
