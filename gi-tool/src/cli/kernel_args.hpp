#pragma once
// The options every kernel-taking subcommand shares (grammar, apply, evolve, ...), so a kernel is
// described the same way everywhere:
//   KERNEL.cu --function NAME [--function NAME...] [--param NAME=VALUES...] [--flag SPEC...]
//   [--block-size EXPR] [--no-helpers]
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "grammar/grammar.hpp"
#include "grammar/grammar_options.hpp"
#include "source/source_file.hpp"

namespace gi::cli {

// Option names to pass to Args (value options and switches).
std::vector<std::string> kernel_value_options();
std::vector<std::string> kernel_switch_options();

// Help text describing the shared options, for each command's --help.
std::string kernel_options_help();

GrammarOptions grammar_options_from(const Args& args);

// The kernel file named by the first positional argument; UsageError when it is missing.
std::string kernel_path_from(const Args& args);

// Reads the kernel and builds its grammar from the shared options.
Grammar grammar_from(const Args& args);

// How the kernel file compiles besides its own folder: -I DIR (include_dirs), -D NAME[=VALUE]
// and --compile-option WORD (options, as nvcc spells them: "-DNAME=VALUE", the words as given).
struct CompileSettings {
    std::vector<std::string> include_dirs;
    std::vector<std::string> options;
};
CompileSettings compile_settings_from(const Args& args);

}  // namespace gi::cli
