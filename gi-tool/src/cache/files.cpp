#include "cache/files.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "util/error.hpp"

namespace gi {

bool write_file_if_changed(const std::filesystem::path& path, const std::string& text) {
    {
        std::ifstream in(path, std::ios::binary);
        if (in) {
            std::ostringstream current;
            current << in.rdbuf();
            if (current.str() == text) return false;
        }
    }
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw Error(path.parent_path().string() + ": cannot create the folder: " + ec.message());
    const std::filesystem::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out.flush()) throw Error(temporary.string() + ": cannot write the file");
    }
    std::filesystem::rename(temporary, path, ec);
    if (ec) {
        std::filesystem::remove(temporary);
        throw Error(path.string() + ": cannot move the new file into place: " + ec.message());
    }
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
