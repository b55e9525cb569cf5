#pragma once
// Running the gi-tool executable the test suite was built with (GI_TOOL_PATH), for the tests of
// its command line.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "process/process.hpp"

namespace gi::test {

struct ToolRun {
    int status = -1;      // exit status; -1 when it could not run or ended by a signal
    std::string output;   // stdout and stderr together
};

// `arguments` is a shell word list (quote paths that may hold spaces).
ToolRun run_gi_tool(const std::string& arguments);

// The same with the arguments as a list (no shell): stdout and stderr apart, the exit code.
ProcessResult gi_tool(std::vector<std::string> arguments);

// A file's whole content ("" when it cannot be read).
std::string file_text(const std::filesystem::path& path);

// The names of the entries of `folder` (files, links and folders), sorted.
std::set<std::string> file_names(const std::filesystem::path& folder);

// An empty folder's path under the temporary directory, `name` and this process's id in its name
// (removed first if a run before left it, and when the test program exits).
std::filesystem::path fresh_temp_dir(const std::string& name);

// Removes `path` (a file or a folder and all in it) when the test program exits: scratch space a
// test reads until its end, which used to be left in /tmp, a dozen folders a run.
void remove_at_exit(const std::filesystem::path& path);

}  // namespace gi::test
