#pragma once
// Binary 8-bit PGM (P5) images in and out: the stereo pair comes in as two of them and the
// disparity map goes out as one.
#include <cstdint>
#include <string>
#include <vector>

namespace example {

struct Pgm {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> pixels;  // row after row
};

// Throws std::runtime_error naming the file for anything that is not an 8-bit P5 image.
Pgm read_pgm(const std::string& path);
void write_pgm(const std::string& path, const Pgm& image);

}  // namespace example
