#include "compile/device_images.hpp"

#include <cstdint>

namespace gi {
namespace {

std::uint64_t little_endian_at(const std::string& bytes, std::size_t at, int size) {
    std::uint64_t v = 0;
    for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    return v;
}

constexpr unsigned kElfClass64 = 2;
constexpr std::uint64_t kMachineCuda = 190;

}  // namespace

std::vector<std::string> embedded_device_images(const std::string& bytes) {
    std::vector<std::string> images;
    // From 1: the file itself is the host's ELF image.
    for (std::size_t at = bytes.find("\x7f" "ELF", 1); at != std::string::npos; at = bytes.find("\x7f" "ELF", at + 1)) {
        if (at + 64 > bytes.size() || static_cast<unsigned char>(bytes[at + 4]) != kElfClass64 ||
            little_endian_at(bytes, at + 18, 2) != kMachineCuda)
            continue;
        // The section headers are last: their offset plus their count times their size is the image's end.
        const std::uint64_t end =
            little_endian_at(bytes, at + 40, 8) + little_endian_at(bytes, at + 60, 2) * little_endian_at(bytes, at + 58, 2);
        if (end <= bytes.size() - at) images.push_back(bytes.substr(at, end));
    }
    return images;
}

}  // namespace gi
