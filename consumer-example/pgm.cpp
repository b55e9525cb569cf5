#include "pgm.hpp"

#include <fstream>
#include <stdexcept>

namespace example {
namespace {

// Next header token, skipping whitespace and '#' comments as the PGM format allows.
std::string token(std::istream& in) {
    std::string text;
    for (int c = in.get(); c != EOF; c = in.get()) {
        if (c == '#') {
            while (c != EOF && c != '\n') c = in.get();
            continue;
        }
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            if (!text.empty()) return text;
            continue;
        }
        text += static_cast<char>(c);
    }
    return text;
}

int number(std::istream& in, const std::string& path, const char* what) {
    const std::string text = token(in);
    try {
        std::size_t used = 0;
        const int value = std::stoi(text, &used);
        if (used == text.size() && value > 0) return value;
    } catch (const std::exception&) {
    }
    throw std::runtime_error(path + ": bad PGM header: " + what + " is '" + text + "'");
}

}  // namespace

Pgm read_pgm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open the image");
    if (token(in) != "P5") throw std::runtime_error(path + ": not a binary PGM (P5) image");
    Pgm image;
    image.width = number(in, path, "width");
    image.height = number(in, path, "height");
    if (number(in, path, "maximum value") > 255) throw std::runtime_error(path + ": only 8-bit PGM images are read");
    image.pixels.resize(static_cast<std::size_t>(image.width) * image.height);
    in.read(reinterpret_cast<char*>(image.pixels.data()), static_cast<std::streamsize>(image.pixels.size()));
    if (in.gcount() != static_cast<std::streamsize>(image.pixels.size()))
        throw std::runtime_error(path + ": truncated PGM image (fewer pixels than its header says)");
    return image;
}

void write_pgm(const std::string& path, const Pgm& image) {
    std::ofstream out(path, std::ios::binary);
    out << "P5\n" << image.width << " " << image.height << "\n255\n";
    out.write(reinterpret_cast<const char*>(image.pixels.data()), static_cast<std::streamsize>(image.pixels.size()));
    if (!out) throw std::runtime_error(path + ": cannot write the image");
}

}  // namespace example
