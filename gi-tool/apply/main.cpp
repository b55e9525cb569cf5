// gi-apply: `gi-tool cache apply` alone. A build with valid cache entries (or without a GPU) only
// turns cached genomes into source; this executable does that with grammar, genome, variant and
// cache code and tinyxml2, so such a build compiles a few dozen files instead of all of gi-tool
// (NVRTC, Boost.Process, SQLite). The arguments are those of `gi-tool cache apply`.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/cache_apply.hpp"
#include "cli/command.hpp"
#include "util/error.hpp"
#include "util/text_rule.hpp"

int main(int argc, char** argv) {
    using namespace gi::cli;
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args[0] == "--version") {
        std::cout << "gi-apply " << GI_OPTIMIZE_VERSION << "\n";
        return kExitOk;
    }
    if (args.empty()) {
        std::cerr << "gi-apply: no arguments (run 'gi-apply --help' for usage; the CMake module runs this)\n";
        return kExitUsage;
    }
    try {
        return run_cache_apply(args, "gi-apply");
    } catch (const gi::UsageError& e) {
        std::cerr << "gi-apply: " << gi::printable_message(e.what()) << "\n(run 'gi-apply --help' for usage)\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        std::cerr << "gi-apply: error: " << gi::printable_message(e.what()) << "\n";
        return kExitFailure;
    }
}
