#pragma once
// Internal to the grammar stage: what the preprocessor directives of a file mean for the grammar:
// the #if regions with their combined conditions, and the macros the file #defines.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "grammar/grammar.hpp"
#include "grammar/scan.hpp"

namespace gi::grammar_detail {

struct ConditionalRegion {
    std::size_t begin = 0;  // just past the opening directive's line
    std::size_t end = 0;    // the start of the line of the directive ending this branch
    int condition = -1;     // index into DirectiveFacts::conditions
    int opening_directive = -1;  // #if/#ifdef/#ifndef/#elif/#else that opens this branch
};

struct MacroDefinition {
    std::string name;
    bool function_like = false;
    std::vector<std::string> parameters;  // of a function-like macro
    std::string value;        // replacement text: comments removed, whitespace collapsed
    int directive = -1;       // index into Scan::directives
    bool conditional = false; // inside some #if region
    // Directly inside `#ifndef NAME` (or `#if !defined(NAME)`) and nothing else, or in the #else of
    // an `#ifdef X / #define NAME X / #else` chain: a default value a -D option may override,
    // which is still the file's own value.
    bool default_guarded = false;
    bool unbalanced = false;  // its replacement has unbalanced braces or parentheses
};

struct DirectiveFacts {
    std::vector<PreprocessorCondition> conditions;
    std::vector<ConditionalRegion> regions;
    std::vector<MacroDefinition> defines;  // file order
    std::vector<int> directive_at_line;    // 1-based line -> directive index starting on it, or -1

    // Indexes into `conditions` of the regions holding `offset`, outermost first.
    std::vector<int> enclosing(std::size_t offset) const;
    // True when `offset` is unconditional or only inside default_guarded-style regions is not
    // decided here; this is the plain question "inside any #if region?".
    bool conditional(std::size_t offset) const { return !enclosing(offset).empty(); }
};

// Identifiers each macro's replacement mentions (its own parameters left out), over all of its
// definitions: a statement using the macro may use any of them.
std::map<std::string, std::vector<std::string>> macro_identifiers(const DirectiveFacts& facts);

// Throws gi::Error for #else/#elif/#endif without #if and for #if without #endif.
DirectiveFacts analyse_directives(const Scan& scan);

// True when every mention of `name` in the #if expression is a truth value (`#if NAME`, `!NAME`,
// `defined(NAME)`, operands of && and ||), false when it is compared or computed with (`NAME > 1`,
// `A == NAME`): such a macro holds a number or a choice among constants, not an on/off switch.
bool used_as_boolean(const std::string& expression, const std::string& name);

// The identifiers a directive's expression mentions as macros ("defined" and the operand
// punctuation excluded); names followed by '(' are reported in `calls` instead.
void condition_names(const std::string& expression, std::vector<std::string>& names, std::vector<std::string>& calls);

}  // namespace gi::grammar_detail
