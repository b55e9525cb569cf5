#pragma once
// Evaluates #if conditions under a set of macro values, so rules in code the preprocessor removes
// for a genome's configuration get mutation weight zero.
#include <map>
#include <optional>
#include <string>

namespace gi {

// Macro name -> replacement text ("64", "1", "" for a bare #define). Names absent are undefined.
using MacroTable = std::map<std::string, std::string>;

// Value of a C preprocessor #if expression: integers, macro names (expanded recursively, unknown
// names are 0 as in C), defined(X) / defined X, unary ! ~ - +, binary * / % + - << >> < > <= >=
// == != & ^ | && ||, ?: and parentheses. std::nullopt when it cannot be evaluated (function-like
// macros, division by zero, syntax it does not know); callers then treat the code as live.
std::optional<long long> evaluate_condition(const std::string& expression, const MacroTable& macros);

// The macros of `macros` that stand for an integer, with their values: `#define BLOCK_SIZE 256`,
// and `#define HALF (BLOCK_SIZE / 2)` whose replacement is an integer expression of such macros
// only. A replacement naming anything else (an undefined name, which #if would read as 0, a cast,
// a function-like macro, `defined`), an empty one and a float are left out.
std::map<std::string, long long> integer_macros(const MacroTable& macros);

}  // namespace gi
