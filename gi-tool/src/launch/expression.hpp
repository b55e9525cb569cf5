#pragma once
// Small integer expressions for launch geometry, in the style of Kernel Tuner's grid divisors and
// Kernel Launcher's expressions: "BLOCK_W", "ceil(width/BLOCK_W)", "div_ceil(height, ROWS*4)".
// Names are tunable parameters and the kernel's integer scalar arguments.
//
// Syntax: integers, names, ( ), unary + -, binary * / % + -, and the functions ceil(x), floor(x),
// min(a,b), max(a,b), div_ceil(a,b) (= ceil(a/b)), round_up(a,b) (= div_ceil(a,b)*b).
// Arithmetic is exact on rationals, so ceil(width/BLOCK_W) is never off by one through rounding;
// '/' is exact division and the final value must be an integer (use ceil/floor/div_ceil).
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gi {

// Bounds that keep parsing and evaluating (both recursive) far from the stack's end whatever the
// text: a registration file is input. Deeper expressions are refused with a UsageError naming the
// position.
inline constexpr std::size_t kMaxExpressionDepth = 256;    // nested parentheses, signs and calls
inline constexpr std::size_t kMaxExpressionHeight = 1024;  // levels of the tree: operators in a chain

using NameValues = std::map<std::string, long long>;

class Expression {
public:
    // `what` names the expression in messages ("grid expression 2"). Throws gi::UsageError naming
    // `what`, the text and the position (1-based) of the problem.
    static Expression parse(const std::string& text, const std::string& what);

    // Throws gi::Error naming the expression for an unknown name (listing the known ones),
    // division by zero, overflow, or a result that is not an integer.
    long long evaluate(const NameValues& names) const;

    const std::string& text() const { return text_; }
    std::vector<std::string> names() const;  // every name used, sorted, without duplicates

    struct Node;

private:
    std::string text_;
    std::string what_;
    std::shared_ptr<const Node> root_;
};

// "BLOCK_W,4" -> up to three expressions split at top-level commas (not those inside f(a,b)).
// Throws gi::UsageError naming `what` when empty or with more than three parts.
std::vector<Expression> parse_dims(const std::string& text, const std::string& what);

}  // namespace gi
