#include "cache/registration.hpp"

#include <algorithm>
#include <cctype>
#include <map>

#include "grammar/grammar.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

std::vector<std::string> normalized_list(const std::vector<std::string>& items) {
    std::vector<std::string> out;
    out.reserve(items.size());
    for (const std::string& item : items) out.push_back(normalize_registration_text(item));
    return out;
}

void compare_lists(const char* what, const std::vector<std::string>& entry,
                   const std::vector<std::string>& now, std::vector<std::string>& out) {
    const std::size_t n = std::max(entry.size(), now.size());
    for (std::size_t i = 0; i < n; ++i) {
        const std::string a = i < entry.size() ? "'" + entry[i] + "'" : "none";
        const std::string b = i < now.size() ? "'" + now[i] + "'" : "none";
        if (a != b)
            out.push_back(std::string(what) + " " + std::to_string(i + 1) + ": " + a + " in the entry, " + b + " now");
    }
}

}  // namespace

std::string normalize_registration_text(const std::string& text) {
    std::string out;
    bool pending_space = false;
    for (const char c : text) {
        // Exactly the characters CMake's regex can name, so _gi_normalize agrees.
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            pending_space = !out.empty();
            continue;
        }
        if (pending_space) out += ' ';
        pending_space = false;
        out += c;
    }
    return out;
}

Registration normalized(const Registration& registration) {
    Registration out;
    out.functions = normalized_list(registration.functions);
    out.params = normalized_list(registration.params);
    out.flags = normalized_list(registration.flags);
    out.block_size = normalize_registration_text(registration.block_size);
    out.grid = normalize_registration_text(registration.grid);
    out.tolerance = normalized_list(registration.tolerance);
    return out;
}

std::string architecture_name(int architecture) { return "sm_" + std::to_string(architecture); }

int parse_architecture(const std::string& text, const std::string& argument) {
    std::string digits = text;
    for (const char* prefix : {"sm_", "compute_"}) {
        if (digits.rfind(prefix, 0) == 0) {
            digits = digits.substr(std::string(prefix).size());
            break;
        }
    }
    bool ok = !digits.empty() && digits.size() <= 4;
    for (const char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    if (!ok || std::stoi(digits) < 10)
        throw UsageError(argument + " '" + text + "' is not a CUDA architecture: write its number as in " +
                         "CMAKE_CUDA_ARCHITECTURES (80, 90) or sm_90; suffixed architectures (90a) are not supported");
    return std::stoi(digits);
}

std::string key_text_from_format(const std::string& format, const std::map<std::string, std::string>& values,
                                 const std::map<std::string, std::vector<std::string>>& lists) {
    std::string text;
    std::size_t from = 0;
    while (from < format.size()) {
        std::size_t end = format.find('\n', from);
        if (end == std::string::npos) end = format.size();
        const std::string line = format.substr(from, end - from);
        from = end + 1;
        if (line.empty()) continue;
        const std::size_t open = line.find('{'), close = line.find('}');
        if (open == std::string::npos || close == std::string::npos || close < open)
            throw Error("cache key format: line '" + line + "' names no {field}");
        std::string name = line.substr(open + 1, close - open - 1);
        const bool list = name.size() > 3 && name.compare(name.size() - 3, 3, "...") == 0;
        if (list) name.resize(name.size() - 3);
        auto line_with = [&](const std::string& value) {
            return line.substr(0, open) + value + line.substr(close + 1) + "\n";
        };
        if (list) {
            const auto it = lists.find(name);
            if (it == lists.end()) throw Error("cache key format: unknown list field {" + name + "...}");
            for (const std::string& item : it->second) text += line_with(item);
        } else {
            const auto it = values.find(name);
            if (it == values.end()) throw Error("cache key format: unknown field {" + name + "}");
            text += line_with(it->second);
        }
    }
    return text;
}

std::string key_text(const std::string& source_sha256, const Registration& registration, int architecture) {
    // The format lives in key_format.txt, which the CMake module reads too (_gi_cache_key): one
    // definition of what a key covers, in which order.
    static const std::string kFormat =
#include "cache/key_format.inc"
        ;
    const Registration r = normalized(registration);
    return key_text_from_format(kFormat,
                                {{"key-version", std::to_string(kCacheKeyVersion)},
                                 {"grammar-version", std::to_string(kGrammarVersion)},
                                 {"architecture", std::to_string(architecture)},
                                 {"source-sha256", source_sha256},
                                 {"block-size", r.block_size},
                                 {"grid", r.grid}},
                                {{"function", r.functions}, {"param", r.params}, {"flag", r.flags}, {"tolerance", r.tolerance}});
}

std::string cache_key(const std::string& source_text, const Registration& registration, int architecture) {
    return sha256_hex(key_text(sha256_hex(source_text), registration, architecture));
}

std::vector<std::string> registration_differences(const Registration& entry_raw, const Registration& now_raw) {
    const Registration entry = normalized(entry_raw);
    const Registration now = normalized(now_raw);
    std::vector<std::string> out;
    compare_lists("function", entry.functions, now.functions, out);
    compare_lists("param", entry.params, now.params, out);
    compare_lists("flag", entry.flags, now.flags, out);
    if (entry.block_size != now.block_size)
        out.push_back("block size: '" + entry.block_size + "' in the entry, '" + now.block_size + "' now");
    if (entry.grid != now.grid) out.push_back("grid: '" + entry.grid + "' in the entry, '" + now.grid + "' now");
    compare_lists("tolerance", entry.tolerance, now.tolerance, out);
    return out;
}

std::string cache_entry_file_name(const std::vector<std::string>& functions, int architecture) {
    std::string name;
    for (const std::string& f : functions) name += (name.empty() ? "" : "+") + file_name_part(f);
    return name + "." + architecture_name(architecture) + ".xml";
}

}  // namespace gi
