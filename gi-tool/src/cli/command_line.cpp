#include "cli/command_line.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <iostream>

#include "cache/registration.hpp"
#include "cli/help_text.hpp"
#include "search/strategy_table.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi::cli {
namespace {

// --help as gi-tool has always printed it: the usage and prose, then each group of options under
// its name, each option with its help wrapped beside it, then the examples. The hidden options
// only with --help-all (AppFormatMode::All); --help says how many it left out.
class HelpFormatter : public CLI::Formatter {
public:
    explicit HelpFormatter(std::shared_ptr<const HiddenOptions> hidden) : hidden_(std::move(hidden)) {}

    std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
        const bool all = mode == CLI::AppFormatMode::All;
        std::string out = app->get_description();
        std::vector<std::string> groups;
        const std::vector<const CLI::Option*> options = app->get_options();
        std::size_t left_out = 0;
        for (const CLI::Option* option : options) {
            if (!shown(option, all)) {
                left_out += listed(option) ? 1 : 0;
                continue;
            }
            if (std::find(groups.begin(), groups.end(), option->get_group()) == groups.end())
                groups.push_back(option->get_group());
        }
        for (const std::string& group : groups) {
            out += "\n" + group + ":\n";
            for (const CLI::Option* option : options)
                if (shown(option, all) && option->get_group() == group) out += option_help_line(names(*option), help(*option));
        }
        if (left_out > 0)
            out += "\n" + std::to_string(left_out) + (left_out == 1 ? " option" : " options") +
                   " for measurements and the CMake module not listed: --help-all lists them\n";
        const std::string footer = app->get_footer();
        if (!footer.empty()) out += "\n" + footer;
        return out + "\nexit status: 0 ok, 1 failure, 2 usage error\n";
    }

private:
    static bool listed(const CLI::Option* option) {
        return option->get_name() != "--help" && option->get_name() != "--help-all" && !option->get_group().empty();
    }
    bool shown(const CLI::Option* option, bool all) const { return listed(option) && (all || !hidden_->count(option)); }

    static std::string names(const CLI::Option& option) {
        if (option.get_positional()) return option.get_name(true);
        std::string names;
        for (const std::string& s : option.get_snames()) names += (names.empty() ? "-" : ", -") + s;
        for (const std::string& l : option.get_lnames()) names += (names.empty() ? "--" : ", --") + l;
        if (option.get_type_size() != 0) names += " " + option.get_type_name();
        return names;
    }

    static std::string help(const CLI::Option& option) {
        std::string help = option.get_description();
        if (!option.get_default_str().empty()) help += " (default " + option.get_default_str() + ")";
        return help;
    }

    std::shared_ptr<const HiddenOptions> hidden_;
};

std::string shown_number(double value) { return significant(value, 6); }

CLI::Validator integer_in(long long min, long long max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            errno = 0;
            char* end = nullptr;
            const long long value = std::strtoll(text.c_str(), &end, 10);
            if (text.empty() || *end != '\0' || errno == ERANGE) return "needs an integer, got '" + text + "'";
            if (value < min || value > max)
                return "must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + text;
            return "";
        },
        "", "integer range");
}

CLI::Validator number_in(double min, double max) {
    return CLI::Validator(
        [min, max](std::string& text) -> std::string {
            char* end = nullptr;
            const double value = std::strtod(text.c_str(), &end);
            if (text.empty() || *end != '\0') return "needs a number, got '" + text + "'";
            if (!(value >= min && value <= max))
                return "must be between " + shown_number(min) + " and " + shown_number(max) + ", got " + text;
            return "";
        },
        "", "number range");
}


// "NAME: message" (CLI11's errors about one option) into its name and message.
std::pair<std::string, std::string> split_error(const std::string& what) {
    const std::size_t colon = what.find(": ");
    if (colon == std::string::npos) return {"", what};
    return {what.substr(0, colon), what.substr(colon + 2)};
}

}  // namespace

Option& Option::group(const std::string& name) {
    option_->group(name);
    return *this;
}

Option& Option::hidden() {
    hidden_->insert(option_);
    return *this;
}

Option& Option::required() {
    option_->required();
    return *this;
}

Option& Option::shown_default(const std::string& text) {
    option_->default_str(text);
    return *this;
}

Option& Option::value_name(const std::string& name) {
    option_->type_name(name);
    return *this;
}

Option& Option::check(std::function<std::string(const std::string&)> problem) {
    option_->check(CLI::Validator([problem](std::string& text) { return problem(text); }, ""));
    return *this;
}

CommandLine::CommandLine(const std::string& usage, const std::string& about, const std::string& footer)
    : app_(std::make_unique<CLI::App>(usage + about)) {
    app_->formatter(std::make_shared<HelpFormatter>(hidden_));
    app_->set_help_flag("--help", "print this help");
    app_->set_help_all_flag("--help-all", "print this help with every option");
    app_->option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)->group("options");
    app_->allow_extras();
    app_->footer(footer);
}

CommandLine::~CommandLine() = default;

template <class Int>
Option CommandLine::add_integer(const std::string& name, Int& field, long long min, long long max, const std::string& help,
                                const std::string& shown_default) {
    CLI::Option* option = app_->add_option(name, field, help)->type_name("N")->check(integer_in(min, max));
    if (shown_default.empty()) option->default_str(std::to_string(field));
    else if (shown_default != "-") option->default_str(shown_default);
    return wrap(option);
}
template Option CommandLine::add_integer(const std::string&, int&, long long, long long, const std::string&, const std::string&);
template Option CommandLine::add_integer(const std::string&, long long&, long long, long long, const std::string&,
                                         const std::string&);
template Option CommandLine::add_integer(const std::string&, unsigned long&, long long, long long, const std::string&,
                                         const std::string&);

Option CommandLine::add_number(const std::string& name, double& field, double min, double max, const std::string& help,
                               const std::string& shown_default) {
    CLI::Option* option = app_->add_option(name, field, help)->type_name("X")->check(number_in(min, max));
    if (shown_default.empty()) option->default_str(shown_number(field));
    else if (shown_default != "-") option->default_str(shown_default);
    return wrap(option);
}

Option CommandLine::add_text(const std::string& name, std::string& field, const std::string& value_name,
                             const std::string& help) {
    return wrap(app_->add_option(name, field, help)->type_name(value_name));
}

Option CommandLine::add_path(const std::string& name, std::filesystem::path& field, const std::string& value_name,
                             const std::string& help) {
    return wrap(app_->add_option(name, field, help)->type_name(value_name));
}

Option CommandLine::add_list(const std::string& name, std::vector<std::string>& field, const std::string& value_name,
                             const std::string& help) {
    return wrap(app_->add_option(name, field, help)
                      ->type_name(value_name)
                      ->allow_extra_args(false)
                      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll));
}

Option CommandLine::add_switch(const std::string& name, bool& field, const std::string& help) {
    return wrap(
        app_->add_flag(name, field, help)->disable_flag_override()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast));
}

Option CommandLine::add_architecture(const std::string& name, std::string& field, const std::string& help) {
    CLI::Option* option = app_->add_option(name, field, help + ": " + kArchitectureSpellings)->type_name("ARCH");
    option->transform(CLI::Validator(
        [name](std::string& text) -> std::string {
            try {
                text = architecture_name(parse_architecture(text, name));
                return "";
            } catch (const UsageError& e) {
                return e.what();  // "--arch 'x' is not a CUDA architecture: ..."
            }
        },
        "", "architecture"));
    return wrap(option);
}

Option CommandLine::add_positionals(const std::string& name, std::vector<std::string>& field, const std::string& help) {
    return wrap(app_->add_option(name, field, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll));
}

void CommandLine::add_kernel_options(KernelSettings& kernel, bool positional, const std::vector<std::string>& only) {
    const std::string group = "kernel options";
    if (positional) app_->add_option("KERNEL.cu", kernel.path, kKernelFileHelp)->group(group);
    for (const KernelOption& o : kernel_options()) {
        if (!only.empty() && std::find(only.begin(), only.end(), o.name) == only.end()) continue;
        if (o.list) add_list(o.name, kernel.*o.list, o.value_name, o.help).group(group);
        if (o.text) add_text(o.name, kernel.*o.text, o.value_name, o.help).group(group);
        if (o.flag) add_switch(o.name, kernel.*o.flag, o.help).group(group);
    }
}

void CommandLine::add_registration_options(RegistrationSettings& registration) {
    add_text("--grid", registration.grid, "EXPR", kGridHelp).group(kRegistrationGroup);
    add_list("--tolerance", registration.tolerance, "TEXT", kToleranceHelp).group(kRegistrationGroup);
}

Option CommandLine::add_strategy(std::string& field) {
    std::vector<const StrategyEntry*> entries;
    if (const StrategyEntry* chosen = find_strategy(field)) entries.push_back(chosen);
    for (const StrategyEntry& entry : strategy_table())
        if (entry.name != field) entries.push_back(&entry);
    std::string names, about;
    for (const StrategyEntry* entry : entries) {
        names += (names.empty() ? "" : "|") + entry->name;
        about += (about.empty() ? "default " : "; ") + entry->name + ": " + entry->summary;
    }
    return add_text("--strategy", field, names, "search strategy (" + about + ")");
}

void CommandLine::add_strategy_options(StrategySettings& settings, const std::string& group) {
    for (const StrategyEntry& entry : strategy_table())
        for (const StrategyOption& option : entry.options) {
            long long& value = settings[option.name];  // std::map: the reference outlives later insertions
            value = option.default_value;
            add_integer(option.name, value, option.min, option.max, entry.name + ": " + option.help).group(group);
        }
}

bool CommandLine::parse(const std::vector<std::string>& args) {
    CLI::App& app = *app_;
    std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them last first
    try {
        app.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        std::cout << help();
        return false;
    } catch (const CLI::CallForAllHelp&) {
        std::cout << help_all();
        return false;
    } catch (const CLI::RequiredError& e) {
        const std::string what = e.what();
        const std::size_t end = what.find(" is required");
        throw UsageError("missing required option " + (end == std::string::npos ? what : what.substr(0, end)));
    } catch (const CLI::ValidationError& e) {
        const auto [name, message] = split_error(e.what());
        // A check whose message names the option already (an architecture's) is shown as it is.
        throw UsageError(message.rfind(name + " ", 0) == 0 ? message : "option " + name + " " + message);
    } catch (const CLI::ArgumentMismatch& e) {
        const std::string what = e.what();
        const std::size_t override = what.find(" was given a disallowed flag override");
        if (override != std::string::npos) {
            const std::string name = what.substr(0, override);  // CLI11 names a flag here without its dashes
            throw UsageError("option " + (name.rfind('-', 0) == 0 ? name : "--" + name) + " takes no value");
        }
        throw UsageError("option " + split_error(what).first + " needs a value");
    } catch (const CLI::ParseError& e) {
        throw UsageError(e.what());
    }
    for (const std::string& extra : app.remaining()) {
        if (extra.size() > 1 && extra[0] == '-')
            throw UsageError("unknown option '" + extra.substr(0, extra.find('=')) +
                             "' (see --help for the options this command takes)");
        throw UsageError("unexpected argument '" + extra + "'");
    }
    return true;
}

bool CommandLine::given(const std::string& name) const { return app_->get_option(name)->count() > 0; }

void CommandLine::at_most_one_of(const std::string& a, const std::string& b) const {
    if (given(a) && given(b)) throw UsageError("give only one of " + a + " and " + b);
}

std::vector<std::string> CommandLine::given_in_group(const std::string& group) const {
    std::vector<std::string> names;
    for (const CLI::Option* option : app_->get_options([&](const CLI::Option* o) { return o->get_group() == group; }))
        if (option->count() > 0) names.push_back(option->get_name());
    return names;
}

std::string CommandLine::help() const { return app_->help(); }

std::string CommandLine::help_all() const { return app_->help("", CLI::AppFormatMode::All); }

}  // namespace gi::cli
