#pragma once
// Stage "report": cache entries as one self-contained HTML page for code review (`gi-tool cache
// show --html`, issue 21): per entry the kernel, architecture, genome and parameter values, where
// it came from, its timings and validation, whether its checksum holds, and, given the kernel
// source it was made from, the source lines each of its items changes. Pure: entries in, text out.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cache/entry.hpp"
#include "report/html_report.hpp"

namespace gi {

struct CachePageEntry {
    std::filesystem::path path;
    std::optional<CacheEntry> entry;  // nullopt: unreadable (`problem` says why)
    std::string problem;
    bool checksum_ok = false;
    SourceView view;                  // its items on the kernel source, or why not
};

std::string cache_page(const std::vector<CachePageEntry>& entries, const std::string& title);

// The source view of `entry` on `source_text` (a file named like entry.kernel_file): its own
// registration's grammar, or a note when the text is not the file the entry was made from.
SourceView entry_source_view(const CacheEntry& entry, const std::string& source_path, const std::string& source_text);

}  // namespace gi
