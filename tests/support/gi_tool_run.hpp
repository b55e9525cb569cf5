#pragma once
// Running the gi-tool executable the test suite was built with (GI_TOOL_PATH), for the tests of
// its command line.
#include <string>

namespace gi::test {

struct ToolRun {
    int status = -1;      // exit status; -1 when it could not run or ended by a signal
    std::string output;   // stdout and stderr together
};

// `arguments` is a shell word list (quote paths that may hold spaces).
ToolRun run_gi_tool(const std::string& arguments);

}  // namespace gi::test
