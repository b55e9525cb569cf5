#include "util/file_read.hpp"

#include <fstream>

#include "util/error.hpp"

namespace gi {

std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& what) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw Error(path.string() + ": cannot read the " + what + " (check that it exists and is readable)");
    if (std::filesystem::is_directory(status))
        throw Error(path.string() + ": is a folder, not a " + what + " (pass the file itself)");
    if (!std::filesystem::is_regular_file(status))
        throw Error(path.string() + ": is not a regular file (a device or a pipe?), so it is not read as a " + what);
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) throw Error(path.string() + ": cannot read the " + what + ": " + ec.message());
    if (size > max_bytes)
        throw Error(path.string() + ": the " + what + " has " + std::to_string(size) + " bytes, more than the " +
                    std::to_string(max_bytes) + " gi-tool reads for one");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path.string() + ": cannot read the " + what + " (check that it is readable)");
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (in.bad()) throw Error(path.string() + ": reading the " + what + " failed");
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

}  // namespace gi
