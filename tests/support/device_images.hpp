#pragma once
// The CUDA device images a host object's fatbinary holds (ELF64, machine EM_CUDA), uncompressed:
// what tests compare with same_device_code (compile/cubin_sections.hpp), as this toolkit has no
// cuobjdump.
#include <cstdint>
#include <string>
#include <vector>

namespace gi::test {

inline std::uint64_t little_endian_at(const std::string& bytes, std::size_t at, int size) {
    std::uint64_t v = 0;
    for (int i = size - 1; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes[at + static_cast<std::size_t>(i)]);
    return v;
}

inline std::vector<std::string> embedded_cubins(const std::string& object) {
    std::vector<std::string> images;
    for (std::size_t at = object.find("\x7f" "ELF", 1); at != std::string::npos; at = object.find("\x7f" "ELF", at + 1)) {
        if (at + 64 > object.size() || object[at + 4] != 2 || little_endian_at(object, at + 18, 2) != 190) continue;
        const std::uint64_t end =
            little_endian_at(object, at + 40, 8) + little_endian_at(object, at + 60, 2) * little_endian_at(object, at + 58, 2);
        if (at + end <= object.size()) images.push_back(object.substr(at, end));
    }
    return images;
}

}  // namespace gi::test
