#include "util/output_path.hpp"

#include "util/error.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {

// Two names of one file: the same inode once links are followed, or (for files not written yet)
// the same absolute path.
bool same_file(const fs::path& a, const fs::path& b) {
    std::error_code ec;
    if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec) && !ec;
    const fs::path x = fs::weakly_canonical(fs::absolute(a, ec), ec), y = fs::weakly_canonical(fs::absolute(b, ec), ec);
    return !ec && x == y;
}

// " (X is another name of K)" when the output names the file another way (a link, "./", "..").
std::string through(const fs::path& output, const fs::path& kept) {
    if (output.lexically_normal() == kept.lexically_normal()) return "";
    return " (" + output.string() + " is another name of " + kept.string() + ", through a link or a path)";
}

}  // namespace

OutputGuard& OutputGuard::keep(const fs::path& file, const std::string& what) {
    kept_.push_back({file, what});
    return *this;
}

OutputGuard& OutputGuard::keep_cache_folder(const fs::path& folder) {
    cache_folders_.push_back(folder);
    return *this;
}

void OutputGuard::check(const std::string& option, const fs::path& output, const std::string& written,
                        const std::string& advice) {
    const std::string named = option + " " + output.string();
    const std::string elsewhere = advice.empty() ? "write " + written + " to another file" : advice;
    std::error_code ec;
    if (fs::is_directory(output, ec))
        throw UsageError(named + " is a folder; give the file to write " + written + " to, e.g. " +
                         (output / "out").string());
    for (const Kept& k : kept_) {
        std::error_code exists;
        if (fs::exists(k.path, exists) && fs::exists(output, exists) && same_file(output, k.path))
            throw UsageError(named + " is " + k.what + " itself; " + elsewhere + through(output, k.path));
    }
    if (output.extension() == ".xml")
        for (const fs::path& folder : cache_folders_)
            if (same_file(output.has_parent_path() ? output.parent_path() : fs::path("."), folder))
                throw UsageError(named + " would be an entry of the cache folder " + folder.string() +
                                 " (every *.xml there is read as one); " + elsewhere);
    for (const Kept& earlier : outputs_)
        if (same_file(output, earlier.path))
            throw UsageError(named + " is also the file of " + earlier.what + " " + earlier.path.string() +
                             "; give each output a file of its own");
    outputs_.push_back({output, option});
}

}  // namespace gi
