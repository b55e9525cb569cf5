#pragma once
// gi-tool's subcommands read their command lines with CLI11: each option declared once, with its
// default, its range and its help, and --help generated from those declarations (laid out as
// cli/help_text.hpp lays out gi-apply's). These helpers keep the declarations to one line each and
// the error messages in gi-tool's own words ("option --population must be between 2 and 1000000,
// got 1"); the subcommand's run function turns a UsageError into exit status 2.
#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "cli/cache_options.hpp"
#include "cli/kernel_args.hpp"

namespace gi::cli {

// A subcommand's command line. `usage` is the "usage: gi-tool NAME ..." line(s), `about` the prose
// under it and `footer` what follows the options (examples); each ends with "\n" or is empty.
// Unknown options, an option given twice that takes one value (the last counts, as with compilers)
// and extra positional arguments are handled by parse().
std::unique_ptr<CLI::App> make_command(const std::string& usage, const std::string& about, const std::string& footer = "");

// Typed options. The default shown in --help is the field's value at declaration, unless
// `shown_default` says otherwise ("every core"); pass "-" to show none.
// Int: int, long long or unsigned long (std::size_t, std::uint64_t).
template <class Int>
CLI::Option* add_integer(CLI::App& app, const std::string& name, Int& field, long long min, long long max,
                         const std::string& help, const std::string& shown_default = "");
CLI::Option* add_number(CLI::App& app, const std::string& name, double& field, double min, double max,
                        const std::string& help, const std::string& shown_default = "");
CLI::Option* add_text(CLI::App& app, const std::string& name, std::string& field, const std::string& value_name,
                      const std::string& help);
CLI::Option* add_list(CLI::App& app, const std::string& name, std::vector<std::string>& field,
                      const std::string& value_name, const std::string& help);  // repeatable
CLI::Option* add_switch(CLI::App& app, const std::string& name, bool& field, const std::string& help);

// The kernel options (cli/kernel_args.hpp) in a group "kernel options"; `positional` adds KERNEL.cu,
// `only` (when not empty) names the options to add.
void add_kernel_options(CLI::App& app, KernelSettings& kernel, bool positional = true,
                        const std::vector<std::string>& only = {});

// -I, -D and --compile-option: how the kernel file compiles, for commands that only compile it.
inline const std::vector<std::string> kCompileOptionNames{"-I", "-D", "--compile-option"};

// --grid and --tolerance, as the cache's commands read them (cli/cache_options.hpp).
void add_registration_options(CLI::App& app, RegistrationSettings& registration);

// Parses `args` (those after the subcommand's name). Returns false when --help was asked for (the
// help is printed; the command then exits 0); throws gi::UsageError for a malformed command line.
bool parse(CLI::App& app, const std::vector<std::string>& args);

// Was the option given on the command line? (For options whose absence means something.)
bool given(const CLI::App& app, const std::string& name);

// UsageError("give only one of A and B") when both were given.
void at_most_one_of(const CLI::App& app, const std::string& a, const std::string& b);

}  // namespace gi::cli
