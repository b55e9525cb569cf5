#pragma once
// Stage 1, kernel source: a .cu file read into memory with the helpers every later stage needs to
// talk about places in it (line numbers) and to scan it without tripping over comments or strings.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace gi {

struct SourceFile {
    std::string path;  // as given by the user, used in messages
    std::string name;  // basename, used in rule ids ("stereo.cu")
    std::string text;  // exact bytes of the file

    // 1-based line of a byte offset into text.
    int line_of(std::size_t offset) const;

    std::vector<std::size_t> line_starts;  // offset of the first byte of each line
};

// A kernel file larger than this is refused before it is read: real kernel files are kilobytes,
// and the grammar and every variant hold copies of the text.
inline constexpr std::uintmax_t kMaxSourceBytes = std::uintmax_t{16} << 20;

// Reads a file; throws gi::Error naming the path when it cannot be read, is not a regular file
// (a folder, /dev/urandom) or is larger than kMaxSourceBytes.
SourceFile read_source_file(const std::filesystem::path& path);

// Builds a SourceFile from text in memory (tests, generated code). `path` is used in messages.
SourceFile make_source_file(std::string path, std::string text);

// The UTF-8 byte order mark a file may start with.
inline constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";

// The same text with every comment and the contents of every string and character literal
// replaced by spaces (newlines kept, quotes kept), so brace, paren and ';' scanning can work on
// plain characters while offsets and line numbers stay those of the original. A leading UTF-8
// byte order mark is blanked too.
// Throws gi::Error with file:line for an unterminated block comment, string or character literal.
std::string mask_comments_and_strings(const SourceFile& file);

}  // namespace gi
