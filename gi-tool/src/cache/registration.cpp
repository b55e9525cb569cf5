#include "cache/registration.hpp"

#include <algorithm>
#include <cctype>

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

std::string key_text(const std::string& source_sha256, const Registration& registration, int architecture) {
    const Registration r = normalized(registration);
    std::string text = "gi-optimize-cache-key " + std::to_string(kCacheKeyVersion) + "\n";
    text += "grammar-version " + std::to_string(kGrammarVersion) + "\n";
    text += "architecture " + architecture_name(architecture) + "\n";
    text += "source-sha256 " + source_sha256 + "\n";
    for (const std::string& f : r.functions) text += "function " + f + "\n";
    for (const std::string& p : r.params) text += "param " + p + "\n";
    for (const std::string& f : r.flags) text += "flag " + f + "\n";
    text += "block-size " + r.block_size + "\n";
    text += "grid " + r.grid + "\n";
    for (const std::string& t : r.tolerance) text += "tolerance " + t + "\n";
    return text;
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
