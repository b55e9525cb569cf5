#pragma once
// gi-tool's --help pages, all of them: each command's (the list `gi-tool --help` prints) and each
// cache subcommand's (the list in `gi-tool cache --help`'s usage line), for tests that check every
// page, so a command added later is checked without touching them.
#include <string>
#include <vector>

namespace gi::test {

struct HelpPage {
    std::vector<std::string> command;  // {"grammar"}, {"cache"}, {"cache", "write"}
    std::string text;                  // what `gi-tool COMMAND --help` printed
};

// Fails the calling test (and returns what it found) when a page cannot be had or the lists are
// not where they were.
std::vector<HelpPage> gi_tool_help_pages();

// "gi-tool cache write", for messages.
std::string shown_command(const std::vector<std::string>& command);

}  // namespace gi::test
