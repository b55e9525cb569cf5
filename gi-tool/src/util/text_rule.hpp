#pragma once
// The one rule for text gi-tool did not write itself (a cache entry's fields, a recorded case's
// names, a run record's note, an option's value) on its way into generated code or onto a
// terminal. Such text may be hostile: a newline in a GPU name ended the `//` comment of a generated
// file and made the next line C++ compiled into the user's program; an escape sequence in a note
// erased `cache show`'s UNCHECKED line from the reviewer's screen.
//
// Control characters are what does it, so they are defined once here: bytes below 0x20, 0x7f, the
// C1 controls U+0080-U+009F (a terminal may take U+009B for ESC [) and the bidirectional overrides
// U+202A-U+202E and U+2066-U+2069 (which reorder what a reviewer sees). Sources of such text refuse
// them (`refuse_control_characters`); every writer escapes them anyway (`printable` for terminals,
// `comment_text`, `c_string_literal` and `include_directive` for generated code), so a path that
// forgets to refuse still cannot inject.
#include <cstddef>
#include <string>
#include <string_view>

namespace gi {

// Where the first control character of `text` starts, or std::string::npos when it has none.
std::size_t first_control_character(std::string_view text);

// Throws gi::Error (gi::UsageError when `usage`) naming `what` ("--gpu", "<note> of gi-cache/k.sm_90.xml")
// and the character's position when `text` holds a control character. `advice` ends the message.
void refuse_control_characters(std::string_view text, const std::string& what, const std::string& advice = "",
                               bool usage = false);

// `text` for a terminal or a log: each control character's bytes written as \xNN, nothing else
// changed (a backslash stays a backslash: only control characters do harm on a terminal).
std::string printable(std::string_view text);

// The same for a message of several lines (an error quoting a compiler's output): newlines and tabs
// kept, every other control character escaped.
std::string printable_message(std::string_view text);

// `text` for the inside of a `//` or `/* */` comment of generated C or C++: printable(), with a
// backslash (it may join the next line to the comment), "*/" (ends a block comment) and "??" (a
// trigraph under -std=c++14 and older) written as \xNN escapes too.
std::string comment_text(std::string_view text);

// `text` as a C string literal, quotes included: '"', '\\' and '?' (trigraphs) escaped, and every
// byte outside printable ASCII as a three-digit octal escape, which never runs into the next character.
std::string c_string_literal(std::string_view text);

// `#include "path"\n`. Escapes mean nothing inside an #include's quotes, so a path holding '"', '\\',
// "??" or a control character cannot be written there: gi::Error naming it instead.
std::string include_directive(const std::string& path);

}  // namespace gi
