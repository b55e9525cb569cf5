#pragma once
// Files a killed run must never leave half-written (checkpoints, run records): the content goes to
// a temporary file beside the target, is flushed to disk, and replaces the target by rename().
#include <filesystem>
#include <string>

namespace gi {

// Throws gi::Error naming the path when the file cannot be written.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

// Whole file as text; throws gi::Error naming the path when it cannot be read.
std::string read_text_file(const std::filesystem::path& path);

}  // namespace gi
