#pragma once
// The build-time step of the CMake module: for each architecture, the cached variant (or the
// original kernel, with the reason), the wrapper that picks one per nvcc pass, the header telling
// host code which variant runs, and the variants' compile options. Run as `gi-tool cache apply`
// and as `gi-apply`, the small executable a build without evolution needs (no NVRTC, Boost or
// SQLite), so both share this one implementation.
#include <string>
#include <vector>

namespace gi::cli {

// argv: the arguments after the command's name; program: how the command is spelled in --help.
// Returns the exit status (0 ok, 1 an entry refused under --require); throws UsageError/Error.
int run_cache_apply(const std::vector<std::string>& argv, const std::string& program);

}  // namespace gi::cli
