#include "util/text_rule.hpp"

#include <cstdio>

#include "util/error.hpp"

namespace gi {
namespace {

unsigned char byte_at(std::string_view text, std::size_t i) {
    return i < text.size() ? static_cast<unsigned char>(text[i]) : 0;
}

// The length in bytes of the control character starting at `i`, 0 when none starts there.
std::size_t control_length(std::string_view text, std::size_t i) {
    const unsigned char c = byte_at(text, i);
    if (c < 0x20 || c == 0x7f) return 1;
    // U+0080-U+009F: C2 80 .. C2 9F.
    if (c == 0xc2 && byte_at(text, i + 1) >= 0x80 && byte_at(text, i + 1) <= 0x9f) return 2;
    // U+202A-U+202E: E2 80 AA .. E2 80 AE; U+2066-U+2069: E2 81 A6 .. E2 81 A9.
    if (c == 0xe2 && i + 2 < text.size()) {
        const unsigned char b = byte_at(text, i + 1), d = byte_at(text, i + 2);
        if (b == 0x80 && d >= 0xaa && d <= 0xae) return 3;
        if (b == 0x81 && d >= 0xa6 && d <= 0xa9) return 3;
    }
    return 0;
}

void append_hex(std::string& out, unsigned char c) {
    char escaped[8];
    std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
    out += escaped;
}

enum class Escape { Terminal, Message, Comment };

// Control characters as \xNN (a message keeps its newlines and tabs); a comment also escapes a
// backslash, the '*' of "*/" and the first '?' of "??".
std::string escaped(std::string_view text, Escape how) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        const std::size_t n = control_length(text, i);
        if (n > 0 && !(how == Escape::Message && (c == '\n' || c == '\t'))) {
            for (std::size_t k = 0; k < n; ++k) append_hex(out, byte_at(text, i + k));
            i += n - 1;
            continue;
        }
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        if (how == Escape::Comment && (c == '\\' || (c == '*' && next == '/') || (c == '?' && next == '?')))
            append_hex(out, static_cast<unsigned char>(c));
        else
            out += c;
    }
    return out;
}

}  // namespace

std::size_t first_control_character(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i)
        if (control_length(text, i) > 0) return i;
    return std::string::npos;
}

void refuse_control_characters(std::string_view text, const std::string& what, const std::string& advice, bool usage) {
    const std::size_t at = first_control_character(text);
    if (at == std::string::npos) return;
    const std::string message = what + " holds a control character (" + printable(text.substr(at, control_length(text, at))) +
                                " at byte " + std::to_string(at + 1) + " of " + std::to_string(text.size()) +
                                "): text there must be one line of visible characters" +
                                (advice.empty() ? "" : "; " + advice);
    if (usage) throw UsageError(message);
    throw Error(message);
}

std::string printable(std::string_view text) { return escaped(text, Escape::Terminal); }

std::string printable_message(std::string_view text) { return escaped(text, Escape::Message); }

std::string comment_text(std::string_view text) { return escaped(text, Escape::Comment); }

std::string c_string_literal(std::string_view text) {
    std::string out = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\' || c == '?') {
            out += '\\';
            out += ch;
            continue;
        }
        if (c >= 0x20 && c < 0x7f) {
            out += ch;
            continue;
        }
        char escaped[8];
        std::snprintf(escaped, sizeof escaped, "\\%03o", c);
        out += escaped;
    }
    return out + "\"";
}

std::string include_directive(const std::string& path) {
    refuse_control_characters(path, "the path '" + printable(path) + "'",
                              "an #include cannot name it (move or rename the file)");
    for (const char* bad : {"\"", "\\", "??"})
        if (path.find(bad) != std::string::npos)
            throw Error("the path '" + path + "' holds '" + bad +
                        "', which an #include \"...\" cannot name (escapes are not read there): move or rename the file");
    return "#include \"" + path + "\"\n";
}

}  // namespace gi
