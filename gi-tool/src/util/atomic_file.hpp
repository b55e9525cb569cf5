#pragma once
// Files a killed run must never leave half-written (checkpoints, run records): the content goes to
// a temporary file beside the target, is flushed to disk, and replaces the target by rename().
#include <cstdint>
#include <filesystem>
#include <string>

namespace gi {

// Throws gi::Error naming the path when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// Removes the temporary files write_file_atomically leaves in `dir` when its process is killed
// mid-write ("run.xml.tmp4711"). Call it only while holding the folder's lock (util/folder_lock),
// when no other process can be writing there. Returns how many were removed.
int remove_abandoned_temporaries(const std::filesystem::path& dir);

// Checkpoints and run records hold a population of genomes: megabytes at most. A larger one, or
// one that is not a regular file, was not written by gi-tool and is refused before it is read.
inline constexpr std::uintmax_t kMaxRunFileBytes = std::uintmax_t{512} << 20;

// Whole file as text; throws gi::Error naming the path when it cannot be read, is not a regular
// file or is larger than kMaxRunFileBytes. `what` names the file in messages ("checkpoint").
std::string read_text_file(const std::filesystem::path& path, const std::string& what = "file");

}  // namespace gi
