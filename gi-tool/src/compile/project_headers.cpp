#include "compile/project_headers.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <regex>

#include "compile/device_side.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

struct IncludeLine {
    std::string name;
    bool quoted = false;
};

std::vector<IncludeLine> include_lines(const std::string& text) {
    static const std::regex pattern(R"(^[ \t]*#[ \t]*include[ \t]*([<"])([^>"]+)[>"])");
    std::vector<IncludeLine> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        std::smatch m;
        if (std::regex_search(line, m, pattern)) out.push_back({m[2].str(), m[1].str() == "\""});
        start = end + 1;
    }
    return out;
}

bool inside(const fs::path& file, const fs::path& dir) {
    std::error_code ec;
    const fs::path f = fs::weakly_canonical(file, ec), d = fs::weakly_canonical(dir, ec);
    const auto [a, b] = std::mismatch(d.begin(), d.end(), f.begin(), f.end());
    return a == d.end();
}

std::optional<fs::path> find_header(const IncludeLine& include, const fs::path& including_dir,
                                    const std::vector<std::string>& include_dirs) {
    std::error_code ec;
    if (include.quoted && fs::is_regular_file(including_dir / include.name, ec)) return including_dir / include.name;
    for (const std::string& dir : include_dirs)
        if (fs::is_regular_file(fs::path(dir) / include.name, ec)) return fs::path(dir) / include.name;
    return std::nullopt;
}

// Walks the files `roots` (texts and the folders their quoted #includes start from) include,
// transitively, found as find_header() finds them, outside `excluded_dirs` and not named in
// `skipped_names`. `take(include name, text)` gives what to keep of a file, or nothing to leave it
// (and what only it includes) out. Returns "" or, when one include name stands for two files, says so.
template <typename Take>
std::string walk_includes(std::vector<std::pair<std::string, fs::path>> pending, const std::vector<std::string>& include_dirs,
                   const std::vector<std::string>& excluded_dirs, const std::vector<std::string>& skipped_names,
                   std::vector<ProjectHeader>& headers, Take take) {
    std::map<std::string, fs::path> taken;  // include name -> the file it stands for
    // (text, its folder) still to scan; each header is scanned once.
    while (!pending.empty()) {
        const auto [text, dir] = pending.back();
        pending.pop_back();
        for (const IncludeLine& include : include_lines(text)) {
            if (std::find(skipped_names.begin(), skipped_names.end(), include.name) != skipped_names.end()) continue;
            const std::optional<fs::path> found = find_header(include, dir, include_dirs);
            if (!found) continue;
            if (std::any_of(excluded_dirs.begin(), excluded_dirs.end(), [&](const std::string& d) { return inside(*found, d); }))
                continue;
            std::error_code ec;
            const fs::path canonical = fs::weakly_canonical(*found, ec);
            if (const auto it = taken.find(include.name); it != taken.end()) {
                // NVRTC looks an in-memory header up by its name alone.
                if (it->second != canonical)
                    return "the include name \"" + include.name + "\" stands for both " + it->second.string() + " and " +
                           canonical.string();
                continue;
            }
            taken[include.name] = canonical;
            std::string header_text;
            try {
                header_text = read_input_file(canonical, 16u << 20, "header");
            } catch (const std::exception&) {
                continue;
            }
            std::optional<std::string> kept = take(include.name, header_text);
            if (!kept) continue;
            headers.push_back({include.name, canonical, std::move(*kept)});
            pending.emplace_back(header_text, canonical.parent_path());
        }
    }
    return "";
}

}  // namespace

std::vector<ProjectHeader> project_headers(const std::string& source, const fs::path& source_dir,
                                           const std::vector<std::string>& include_dirs,
                                           const std::vector<std::string>& excluded_dirs,
                                           const std::vector<std::string>& stand_in_names) {
    std::vector<ProjectHeader> headers;
    const bool one_file_a_name =
        walk_includes({{source, source_dir}}, include_dirs, excluded_dirs, stand_in_names, headers,
                      [](const std::string& name, const std::string& text) -> std::optional<std::string> {
                          const std::optional<DeviceSide> cut = device_side_of(text, name);
                          if (!cut) return std::nullopt;
                          return cut->source;
                      }).empty();
    // One name for two files cannot be stood in for, so none is (the run then goes as it did without this).
    return one_file_a_name ? headers : std::vector<ProjectHeader>{};
}

std::vector<ProjectHeader> included_project_files(const std::vector<std::string>& texts, const fs::path& source_dir,
                                                  const std::vector<std::string>& include_dirs,
                                                  const std::vector<std::string>& excluded_dirs,
                                                  const std::vector<std::string>& skipped_names) {
    std::vector<std::pair<std::string, fs::path>> roots;
    for (const std::string& text : texts) roots.emplace_back(text, source_dir);
    std::vector<ProjectHeader> files;
    const std::string conflict = walk_includes(std::move(roots), include_dirs, excluded_dirs, skipped_names, files,
                                               [](const std::string&, const std::string& text) -> std::optional<std::string> { return text; });
    if (!conflict.empty()) throw Error(conflict);
    return files;
}

std::string include_lines_text(const std::string& text) {
    std::string out;
    for (const IncludeLine& include : include_lines(text)) out += (include.quoted ? "\"" : "<") + include.name + "\n";
    return out;
}

}  // namespace gi
