#pragma once
// File writing for generated build inputs. Content that did not change is not rewritten, so its
// timestamp stays and the build system (ninja restats custom-command outputs) recompiles nothing.
// Written as every output is (util/atomic_file.hpp): a new file renamed into place, never through a link.
#include <filesystem>
#include <string>
#include <vector>

namespace gi {

// Returns true when the file was (re)written. gi::Error naming the path on failure.
bool write_file_if_changed(const std::filesystem::path& path, const std::string& text);

// Entry files (*.xml) in a cache folder, sorted; gi::Error when the folder does not exist.
std::vector<std::filesystem::path> list_cache_entries(const std::filesystem::path& folder);

}  // namespace gi
