#include "cache/files.hpp"

#include <algorithm>

#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {

namespace {

// Whether `path` is a plain file holding exactly `text`. Only a regular file of that very size is
// read, so a device or FIFO where an output goes is replaced, never read without end.
bool holds(const std::filesystem::path& path, const std::string& text) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(path, ec)) ||
        std::filesystem::file_size(path, ec) != text.size() || ec)
        return false;
    try {
        return read_input_file(path, text.size(), "generated file") == text;
    } catch (const Error&) {
        return false;  // changed meanwhile or unreadable: written anew
    }
}

}  // namespace

bool write_file_if_changed(const std::filesystem::path& path, const std::string& text) {
    if (holds(path, text)) return false;
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw Error(path.parent_path().string() + ": cannot create the folder: " + ec.message());
    write_file_atomically(path, text);
    return true;
}

std::vector<std::filesystem::path> list_cache_entries(const std::filesystem::path& folder) {
    std::error_code ec;
    if (!std::filesystem::is_directory(folder, ec))
        throw Error(folder.string() + ": no such cache folder (pass the folder holding the *.xml entries)");
    std::vector<std::filesystem::path> entries;
    // Every *.xml, plain file or not: reading one that is a link, a folder or a device is an error
    // its reader reports, instead of the entry going unmentioned.
    for (const auto& item : std::filesystem::directory_iterator(folder, ec))
        if (item.path().extension() == ".xml") entries.push_back(item.path());
    if (ec) throw Error(folder.string() + ": cannot list the cache folder: " + ec.message());
    std::sort(entries.begin(), entries.end());
    return entries;
}

}  // namespace gi
