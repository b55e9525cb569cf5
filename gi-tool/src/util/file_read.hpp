#pragma once
// Reading an input file a person named: only a regular file (or a link to one) below a size limit
// is read, so a folder, a device (/dev/urandom) or a file far larger than any input of its kind
// is an error naming it, never an empty input or a read without end.
#include <cstdint>
#include <filesystem>
#include <string>

namespace gi {

// `what` names the kind of file in messages ("kernel source", "genome file"). Throws gi::Error
// naming the path: missing or unreadable, a folder, not a regular file, larger than `max_bytes`.
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& what);

}  // namespace gi
