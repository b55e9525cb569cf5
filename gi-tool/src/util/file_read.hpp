#pragma once
// Reading an input file a person named: only a regular file (or a link to one) below a size limit
// is read, so a folder, a device (/dev/urandom) or a file far larger than any input of its kind
// is an error naming it, never an empty input or a read without end. The check is made on the
// opened file itself, so a FIFO or device swapped in after a look at the name is refused too.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

namespace gi {

// `what` names the kind of file in messages ("kernel source", "genome file"). Throws gi::Error
// naming the path: missing or unreadable, a folder, not a regular file, larger than `max_bytes`.
std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& what);

// The same guard for an input too large to hold twice (a recorded buffer of hundreds of MB): the
// content goes to `consume` in pieces of at most a few MB, in order. Returns the bytes read.
std::uintmax_t read_input_file_in_pieces(const std::filesystem::path& path, std::uintmax_t max_bytes,
                                         const std::string& what,
                                         const std::function<void(const char* data, std::size_t size)>& consume);

}  // namespace gi
