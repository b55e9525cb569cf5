#include "help_pages.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "../support/gi_tool_run.hpp"

namespace gi::test {
namespace {

HelpPage help_page(const std::vector<std::string>& command) {
    std::vector<std::string> args = command;
    args.push_back("--help");
    const ProcessResult r = gi_tool(args);
    EXPECT_TRUE(r.succeeded()) << shown_command(command) << " --help: " << r.err;
    return {command, r.out};
}

// "  accept    run the program ..." under "commands:", up to the blank line after them.
std::vector<std::string> listed_commands(const std::string& top_help) {
    std::vector<std::string> names;
    std::istringstream lines(top_help);
    bool in_list = false;
    for (std::string line; std::getline(lines, line);) {
        if (line == "commands:") in_list = true;
        else if (in_list && line.empty()) break;
        else if (in_list) names.push_back(line.substr(2, line.find(' ', 2) - 2));
    }
    return names;
}

// "usage: gi-tool cache show|verify|write|apply|key ...".
std::vector<std::string> listed_cache_subcommands(const std::string& cache_help) {
    const std::string prefix = "usage: gi-tool cache ";
    std::vector<std::string> names;
    if (cache_help.rfind(prefix, 0) != 0) return names;
    std::istringstream list(cache_help.substr(prefix.size(), cache_help.find(' ', prefix.size()) - prefix.size()));
    for (std::string name; std::getline(list, name, '|');) names.push_back(name);
    return names;
}

}  // namespace

std::string shown_command(const std::vector<std::string>& command) {
    std::string shown = "gi-tool";
    for (const std::string& word : command) shown += " " + word;
    return shown;
}

std::vector<HelpPage> gi_tool_help_pages() {
    std::vector<HelpPage> pages;
    const std::vector<std::string> commands = listed_commands(gi_tool({"--help"}).out);
    EXPECT_GE(commands.size(), 10u) << "gi-tool --help no longer lists its commands under 'commands:'";
    for (const std::string& command : commands) {
        pages.push_back(help_page({command}));
        if (command != "cache") continue;
        const std::vector<std::string> subcommands = listed_cache_subcommands(pages.back().text);
        EXPECT_GE(subcommands.size(), 4u) << "gi-tool cache --help no longer starts 'usage: gi-tool cache a|b|...'";
        for (const std::string& subcommand : subcommands) pages.push_back(help_page({"cache", subcommand}));
    }
    return pages;
}

}  // namespace gi::test
