#pragma once
// gi-tool's subcommands read their command lines with CLI11: each option declared once, with its
// default, its range and its help, and --help generated from those declarations (laid out as
// cli/help_text.hpp lays out gi-apply's). CommandLine keeps the declarations to one line each and
// the error messages in gi-tool's own words ("option --population must be between 2 and 1000000,
// got 1"); the subcommand's run function turns a UsageError into exit status 2.
//
// CLI11 is header-only and costs seconds of compiling in each file that includes it; only
// command_line.cpp does, and the subcommands see this narrow interface.
#include <filesystem>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "cli/cache_options.hpp"
#include "cli/kernel_args.hpp"
#include "search/strategy.hpp"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gi::cli {

// Options --help leaves out (CommandLine::help_all lists them).
using HiddenOptions = std::set<const CLI::Option*>;

// A declared option, to set what its declaration left at the defaults.
class Option {
public:
    Option(CLI::Option* option, HiddenOptions* hidden) : option_(option), hidden_(hidden) {}
    Option& group(const std::string& name);  // the heading it is listed under in --help ("options" by default)
    // Left out of --help, listed by --help-all: a knob for measurements and for the CMake module, not
    // for a person choosing options. It parses, and is refused where its group does not apply, as any.
    Option& hidden();
    Option& required();                      // "missing required option NAME" when absent
    Option& shown_default(const std::string& text);  // the default --help shows; "" shows none
    Option& value_name(const std::string& name);     // "N" in "--count N"
    // `problem` says what is wrong with a value ("" when nothing is): "option NAME " + problem.
    Option& check(std::function<std::string(const std::string&)> problem);

private:
    CLI::Option* option_;
    HiddenOptions* hidden_;
};

class CommandLine {
public:
    // `usage` is the "usage: gi-tool NAME ..." line(s), `about` the prose under it and `footer` what
    // follows the options (examples); each ends with "\n" or is empty.
    CommandLine(const std::string& usage, const std::string& about, const std::string& footer = "");
    ~CommandLine();
    CommandLine(const CommandLine&) = delete;
    CommandLine& operator=(const CommandLine&) = delete;

    // Typed options. The default shown in --help is the field's value at declaration, unless
    // `shown_default` says otherwise ("every core"); "-" shows none. A value option given twice
    // counts with its last value, as with compilers.
    template <class Int>  // int, long long or unsigned long (std::size_t, std::uint64_t)
    Option add_integer(const std::string& name, Int& field, long long min, long long max, const std::string& help,
                       const std::string& shown_default = "");
    Option add_number(const std::string& name, double& field, double min, double max, const std::string& help,
                      const std::string& shown_default = "");
    Option add_text(const std::string& name, std::string& field, const std::string& value_name, const std::string& help);
    Option add_path(const std::string& name, std::filesystem::path& field, const std::string& value_name,
                    const std::string& help);
    Option add_list(const std::string& name, std::vector<std::string>& field, const std::string& value_name,
                    const std::string& help);  // repeatable, one value each time
    Option add_switch(const std::string& name, bool& field, const std::string& help);
    // A GPU architecture as CMake or nvcc write it, "90", "sm_90" or "compute_90" (the parser the
    // cache commands use, cache/registration.hpp's parse_architecture), stored as nvcc's "sm_90".
    // --help shows ARCH and `help` followed by ": 90 or sm_90"; a bad value is a UsageError naming it.
    Option add_architecture(const std::string& name, std::string& field, const std::string& help);
    // Arguments without an option name, in order ("DIR" in --help).
    Option add_positionals(const std::string& name, std::vector<std::string>& field, const std::string& help);

    // The kernel options (cli/kernel_args.hpp) in a group "kernel options"; `positional` adds
    // KERNEL.cu, `only` (when not empty) names the options to add.
    void add_kernel_options(KernelSettings& kernel, bool positional = true, const std::vector<std::string>& only = {});
    // --grid and --tolerance, as the cache's commands read them (cli/cache_options.hpp).
    void add_registration_options(RegistrationSettings& registration);
    // --strategy NAME, its values and what each is from the strategy table (search/strategy_table.hpp),
    // `field`'s value first as the default.
    Option add_strategy(std::string& field);
    // Every strategy's own options in `group`, each into settings[its name], which starts at its
    // default; --help prefixes its text with the strategy's name.
    void add_strategy_options(StrategySettings& settings, const std::string& group);

    // Parses `args` (those after the subcommand's name). Returns false when --help was asked for
    // (the help is printed; the command then exits 0); throws gi::UsageError for a malformed
    // command line: unknown options, missing values, values out of range, stray arguments.
    bool parse(const std::vector<std::string>& args);

    bool given(const std::string& name) const;  // was the option on the command line?
    void at_most_one_of(const std::string& a, const std::string& b) const;  // UsageError naming both
    std::vector<std::string> given_in_group(const std::string& group) const;  // options of `group` given
    std::string help() const;      // what --help prints: the hidden options left out
    std::string help_all() const;  // what --help-all prints: every option

private:
    Option wrap(CLI::Option* option) { return Option(option, hidden_.get()); }

    std::shared_ptr<HiddenOptions> hidden_ = std::make_shared<HiddenOptions>();  // the help formatter reads it too
    std::unique_ptr<CLI::App> app_;
};

// -I, -D and --compile-option: how the kernel file compiles, for commands that only compile it.
inline const std::vector<std::string> kCompileOptionNames{"-I", "-D", "--compile-option"};

}  // namespace gi::cli
