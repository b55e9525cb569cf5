#pragma once
// Stage 5, compile: the device side of the project's own headers. A kernel file's device side
// (compile/device_side.hpp) still includes the program's headers, and those often hold host code
// too (declarations with CUDA runtime types, inline host helpers, <string> and <vector>), which
// NVRTC refuses; every variant then went to nvcc. Each such header, found as the compiler finds it,
// is cut the same way and handed to NVRTC in memory under the name its #include line writes.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace gi {

struct ProjectHeader {
    std::string include_name;         // as the #include line writes it: "math/scale_math.cuh"
    std::filesystem::path path;       // the file it stands for
    std::string device_side;          // its text with host code blanked
};

// The headers `source` includes (and they include, transitively) that are found in the including
// file's folder (quoted #include) or in `include_dirs`, outside the folders in `excluded_dirs` (the
// CUDA toolkit's, whose headers NVRTC reads itself) and not named in `stand_in_names` (headers
// gi-tool already stands in for). A header that is not found or whose brackets do not balance is
// left out: NVRTC then reads (or misses) it as before, and the run falls back to nvcc when that
// fails. Nothing at all when one include name stands for two files (NVRTC's in-memory headers are
// looked up by name alone).
std::vector<ProjectHeader> project_headers(const std::string& source, const std::filesystem::path& source_dir,
                                           const std::vector<std::string>& include_dirs,
                                           const std::vector<std::string>& excluded_dirs,
                                           const std::vector<std::string>& stand_in_names);

// Every file `texts` include (and those include, transitively) from `source_dir` (quoted
// #include) or `include_dirs`, outside `excluded_dirs` and not named in `skipped_names`, whole: what
// a compile on a machine that does not see these folders needs (cuda/nvrtc_processes.hpp sends them
// through the protocol). `path` is the file; `device_side` holds its whole text here. Throws
// gi::Error naming both files when one include name stands for two (NVRTC's in-memory headers are
// looked up by name alone).
std::vector<ProjectHeader> included_project_files(const std::vector<std::string>& texts, const std::filesystem::path& source_dir,
                                                  const std::vector<std::string>& include_dirs,
                                                  const std::vector<std::string>& excluded_dirs,
                                                  const std::vector<std::string>& skipped_names);

// The #include lines of `text` (their names and whether quoted), one a line: what decides which
// files included_project_files() finds, as a key.
std::string include_lines_text(const std::string& text);

}  // namespace gi
