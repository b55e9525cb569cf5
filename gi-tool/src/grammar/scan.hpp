#pragma once
// Internal to the grammar stage: the masked source cut into preprocessor directives and code tokens,
// with every bracket matched, so later passes walk tokens instead of characters.
#include <string>
#include <string_view>
#include <vector>

#include "source/source_file.hpp"

namespace gi::grammar_detail {

struct Token {
    enum class Kind { Identifier, Number, Literal, Punct } kind = Kind::Punct;
    std::size_t begin = 0;  // byte offsets into the source
    std::size_t end = 0;
    int line = 0;
    std::string_view text;  // the masked spelling (string and char contents are blanks)

    bool is(std::string_view spelling) const { return text == spelling; }
    bool identifier() const { return kind == Kind::Identifier; }
};

struct Directive {
    std::size_t hash = 0;         // offset of '#'
    std::size_t line_begin = 0;   // offset of the first byte of its (first) line
    std::size_t content_end = 0;  // end of the logical line, before its final newline (and '\r')
    std::size_t next = 0;         // offset just past the final newline (or the end of the file)
    int line = 0;
    int last_line = 0;            // differs from line when lines are continued with '\'
    std::string keyword;          // "if", "ifdef", "define", "pragma", ...
    std::string rest;             // masked text after the keyword, continuations joined, trimmed
};

struct Scan {
    const SourceFile* source = nullptr;
    std::string masked;
    std::vector<Directive> directives;  // in file order
    std::vector<bool> directive_line;   // index: 1-based line; true when part of a directive
    std::vector<Token> tokens;          // code outside directives
    std::vector<int> match;             // for ( [ { and ) ] }: the index of the partner token, else -1
};

// Masks, finds directives, tokenizes. Throws gi::Error for unterminated comments and literals.
Scan scan_source(const SourceFile& source);

// Matches brackets; returns an empty string on success, else a description of the first mismatch
// with the offset it concerns in `where`.
struct BracketProblem {
    std::string what;
    std::size_t where = 0;
    std::size_t opened_at = std::string::npos;  // for an unclosed opener
    char opener = 0;
};
std::vector<BracketProblem> match_brackets(Scan& scan);

bool is_identifier_char(char c);
std::string trim(std::string_view text);
// Trimmed [begin, end) range within source text (whitespace only, not comments).
void trim_range(const std::string& text, std::size_t& begin, std::size_t& end);

}  // namespace gi::grammar_detail
