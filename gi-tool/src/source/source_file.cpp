#include "source/source_file.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>

#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {

int SourceFile::line_of(std::size_t offset) const {
    if (line_starts.empty()) return 1;
    const auto after = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
    return static_cast<int>(after - line_starts.begin());
}

SourceFile make_source_file(std::string path, std::string text) {
    SourceFile file;
    file.name = std::filesystem::path(path).filename().string();
    file.path = std::move(path);
    file.text = std::move(text);
    file.line_starts.push_back(0);
    for (std::size_t i = 0; i < file.text.size(); ++i)
        if (file.text[i] == '\n' && i + 1 < file.text.size()) file.line_starts.push_back(i + 1);
    return file;
}

SourceFile read_source_file(const std::filesystem::path& path) {
    return make_source_file(path.string(), read_input_file(path, kMaxSourceBytes, "kernel source"));
}

namespace {

bool is_ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// A quote directly after a digit-led token is a C++14 digit separator (1'000'000), not a literal.
bool is_digit_separator(const std::string& text, std::size_t quote) {
    std::size_t start = quote;
    while (start > 0 && (is_ident_char(text[start - 1]) || text[start - 1] == '\'')) --start;
    return start < quote && text[start] >= '0' && text[start] <= '9' && quote + 1 < text.size() &&
           is_ident_char(text[quote + 1]);
}

// R"delim( ... )delim": returns the offset just past the closing quote, or npos when unterminated.
std::size_t raw_string_end(const std::string& text, std::size_t quote) {
    const std::size_t open = text.find('(', quote + 1);
    if (open == std::string::npos || open - quote - 1 > 16) return std::string::npos;
    const std::string closing = ")" + text.substr(quote + 1, open - quote - 1) + "\"";
    const std::size_t close = text.find(closing, open + 1);
    return close == std::string::npos ? std::string::npos : close + closing.size();
}

}  // namespace

std::string mask_comments_and_strings(const SourceFile& file) {
    const std::string& text = file.text;
    std::string masked = text;
    auto blank = [&](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k)
            if (masked[k] != '\n') masked[k] = ' ';
    };
    std::size_t i = 0;
    const std::size_t n = text.size();
    // A UTF-8 byte order mark (some Windows editors write one) is no part of the first line: a
    // '#define' after it still starts its line. Blanked here, kept in the text and so in outputs.
    if (text.compare(0, kUtf8Bom.size(), kUtf8Bom) == 0) {
        blank(0, kUtf8Bom.size());
        i = kUtf8Bom.size();
    }
    bool line_start = true;  // only whitespace (or comments) so far on this line
    while (i < n) {
        const char c = text[i];
        if (c == '\n') {
            line_start = true;
            ++i;
            continue;
        }
        if (c == '#' && line_start) {
            // #error and #warning take free text, where an apostrophe is not a character literal.
            std::size_t k = i + 1;
            while (k < n && (text[k] == ' ' || text[k] == '\t')) ++k;
            std::size_t word_end = k;
            while (word_end < n && is_ident_char(text[word_end])) ++word_end;
            const std::string word = text.substr(k, word_end - k);
            if (word == "error" || word == "warning") {
                std::size_t j = word_end;
                while (j < n && !(text[j] == '\n' && text[j - 1] != '\\')) ++j;
                blank(word_end, j);
                i = j;
                continue;
            }
        }
        if (c != ' ' && c != '\t' && c != '\r' && !(c == '/' && i + 1 < n && text[i + 1] == '*'))
            line_start = false;
        if (c == '/' && i + 1 < n && text[i + 1] == '/') {
            // A line comment ends at a newline not escaped by a trailing backslash.
            std::size_t j = i + 2;
            while (j < n && !(text[j] == '\n' && text[j - 1] != '\\' &&
                              !(text[j - 1] == '\r' && j >= 2 && text[j - 2] == '\\')))
                ++j;
            blank(i, j);
            i = j;
        } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
            const std::size_t close = text.find("*/", i + 2);
            if (close == std::string::npos)
                throw_at(file.path, file.line_of(i), "unterminated block comment: '/*' has no '*/'",
                         "close the comment");
            blank(i, close + 2);
            i = close + 2;
        } else if (c == '"' || (c == '\'' && !is_digit_separator(text, i))) {
            if (c == '"' && i > 0 && text[i - 1] == 'R' && (i < 2 || !is_ident_char(text[i - 2]) ||
                                                            text[i - 2] == 'u' || text[i - 2] == 'U' ||
                                                            text[i - 2] == 'L' || text[i - 2] == '8')) {
                const std::size_t end = raw_string_end(text, i);
                if (end == std::string::npos)
                    throw_at(file.path, file.line_of(i), "unterminated raw string literal",
                             "close it with )delimiter\"");
                blank(i + 1, end - 1);
                i = end;
                continue;
            }
            std::size_t j = i + 1;
            bool closed = false;
            while (j < n) {
                if (text[j] == '\\') {
                    j += 2;
                    continue;
                }
                if (text[j] == '\n') break;
                if (text[j] == c) {
                    closed = true;
                    break;
                }
                ++j;
            }
            if (!closed)
                throw_at(file.path, file.line_of(i),
                         c == '"' ? "unterminated string literal" : "unterminated character literal",
                         std::string("close it with ") + c + " on the same line");
            blank(i + 1, j);
            i = j + 1;
        } else {
            ++i;
        }
    }
    return masked;
}

}  // namespace gi
