#pragma once
// The options every kernel-taking subcommand shares (grammar, apply, evolve, ...), so a kernel is
// described the same way everywhere:
//   KERNEL.cu --function NAME [--function NAME...] [--param NAME=VALUES...] [--flag SPEC...]
//   [--block-size EXPR] [--no-helpers] [--no-transforms] [-I DIR] [-D NAME[=VALUE]] [--compile-option WORD]
// Declared once, in kernel_options(): gi-tool's commands add them to their CLI11 command line
// (cli/kernel_options.hpp), gi-apply's `cache apply` reads them with Args, and both print the
// same help for them.
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "grammar/grammar.hpp"
#include "grammar/grammar_options.hpp"
#include "source/source_file.hpp"

namespace gi::cli {

// What the shared options say, as given.
struct KernelSettings {
    std::string path;  // KERNEL.cu
    std::vector<std::string> functions, params, flags;
    std::string block_size;
    bool no_helpers = false;
    bool no_transforms = false;
    std::vector<std::string> include_dirs;     // -I
    std::vector<std::string> defines;          // -D, without the -D
    std::vector<std::string> compile_options;  // --compile-option
};

// One shared option: where its value goes (one of the three members) and its help.
struct KernelOption {
    const char* name;        // "--function", "-I"
    const char* value_name;  // "NAME"; "" for a switch
    const char* help;
    std::vector<std::string> KernelSettings::*list = nullptr;  // repeatable
    std::string KernelSettings::*text = nullptr;               // once (the last one given counts)
    bool KernelSettings::*flag = nullptr;                      // a switch
};
const std::vector<KernelOption>& kernel_options();

// The help line of KERNEL.cu, for the commands whose kernel file is optional or described apart.
extern const char* const kKernelFileHelp;

// For Args (gi-apply): the option names, their help ("kernel options:\n" and a line each), and
// the settings read from a parsed command line.
std::vector<std::string> kernel_value_options();
std::vector<std::string> kernel_switch_options();
std::string kernel_options_help();
KernelSettings kernel_settings_from(const Args& args);

GrammarOptions grammar_options_from(const KernelSettings& kernel);

// The kernel file; UsageError when it is missing.
std::string kernel_path_from(const KernelSettings& kernel);

// Reads the kernel and builds its grammar from the shared options.
Grammar grammar_from(const KernelSettings& kernel);

// How the kernel file compiles besides its own folder: -I DIR (include_dirs), -D NAME[=VALUE]
// and --compile-option WORD (options, as nvcc spells them: "-DNAME=VALUE", the words as given).
struct CompileSettings {
    std::vector<std::string> include_dirs;
    std::vector<std::string> options;
};
CompileSettings compile_settings_from(const KernelSettings& kernel);

}  // namespace gi::cli
