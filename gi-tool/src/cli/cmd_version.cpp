// `gi-tool version`: prints the tool and grammar versions (cache keys depend on both).
#include <iostream>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "grammar/grammar.hpp"
#include "util/hash.hpp"

namespace gi::cli {
namespace {
int run_version(const std::vector<std::string>& args) {
    CommandLine app("usage: gi-tool version\n", "  Prints the gi-tool version and the grammar version.\n");
    if (!app.parse(args)) return kExitOk;
    std::cout << "gi-tool " << GI_OPTIMIZE_VERSION << "\ngrammar version " << kGrammarVersion << "\n";
    // Case loads and hand-overs hash hundreds of MB: a slow search on large cases may be this.
    std::cout << "sha-256: " << sha256_implementation() << "\n";
    return kExitOk;
}
const CommandRegistrar registrar({"version", "print the tool and grammar versions", run_version});
}  // namespace
}  // namespace gi::cli
