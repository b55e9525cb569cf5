#pragma once
// What the code transformations (grammar/transforms.hpp) need to know of a piece of kernel text,
// read from the text alone: the grammar checks the original with it before it offers a
// transformation, and the variant stage checks the text that edits left there before it applies
// one, so an edit that breaks a transformation's premise turns it off instead of miscompiling.
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gi {

// A token of kernel text, comments and string contents masked away.
struct CodeToken {
    std::string text;
    bool identifier = false;
};

// The tokens of `text`; nullopt when it holds a preprocessor line or an unterminated comment or
// literal (text a transformation would copy or move blindly).
std::optional<std::vector<CodeToken>> code_tokens(std::string_view text);

// A for loop that counts up: `V < E` or `V <= E`, stepped by `V++`, `++V`, `V += C` or `V = V + C`.
struct CountedLoop {
    std::string variable;  // V
    std::string compare;   // "<" or "<="
    std::string bound;     // E, as written
    std::string stride;    // C, as written ("1" for ++)
};

// The loop the header's condition and step describe, or nullopt with `why` set. E and C must be
// plain expressions (names, members, numbers, arithmetic, min/max): a load or a call could give
// another value after the body ran.
std::optional<CountedLoop> counted_loop(std::string_view condition, std::string_view step, std::string& why);

// Why `body` cannot be run several times in one trip of the loop ("" when it can): it may leave or
// skip an iteration (break, continue, goto), writes V or a name E or C reads, or holds a
// preprocessor line.
std::string unroll_blocker(std::string_view body, const CountedLoop& loop);

// The condition that N more iterations remain: "V + (N-1)*C < E" (C folded when a number).
std::string unrolled_condition(const CountedLoop& loop, int factor);

// The names `tokens` assign to, increment or decrement, or take the address of (a declaration's
// initialised names too: "float t = x" writes t).
std::set<std::string> written_names(const std::vector<CodeToken>& tokens);

// Identifiers `tokens` read as variables: not members (after '.' or '->') and not called.
std::set<std::string> read_names(const std::vector<CodeToken>& tokens);

// Whether `tokens` call a function other than the pure math ones (min, max, sqrtf, __ldg, ...).
bool calls_impure_function(const std::vector<CodeToken>& tokens);

}  // namespace gi
