#pragma once
// Internal to the grammar stage: a function body walked statement by statement into rule slots
// (statements, if conditions, for-header parts, unroll pragmas) with the scope facts each needs.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "grammar/directives.hpp"
#include "grammar/functions.hpp"
#include "grammar/grammar.hpp"
#include "grammar/scan.hpp"

namespace gi::grammar_detail {

// A local (or parameter) with the type it was declared with: "Real" for `Real d;`, "const Prim&"
// for a `const Prim& v` parameter, "float*" and "int[]" for pointers and arrays.
struct Declared {
    std::string name;
    std::string type;
};

struct RuleDraft {
    RuleKind kind = RuleKind::Statement;
    std::size_t begin = 0;  // slot range in the source
    std::size_t end = 0;
    int first_token = 0;    // tokens the slot holds, [first_token, end_token), for `uses`
    int end_token = 0;
    int id_line = 0;        // the line in its id (a pragma's is its for loop's line)
    std::string indent;     // an empty pragma slot: the for line's indentation
    std::string function;
    std::vector<Declared> declares;
    std::vector<Declared> in_scope;  // visible declarations, outermost first, one per name
    int loop_depth = 0;
    bool has_break_or_continue = false;
    bool is_barrier = false;
    bool braceless_body = false;
};

struct SharedDeclaration {
    std::size_t slot_begin = 0;  // right after "__shared__ "
    std::size_t slot_end = 0;    // covers "volatile " when present
    bool has_volatile = false;
    bool volatile_elsewhere = false;  // volatile written before __shared__: no place for a slot
    int line = 0;
    std::vector<std::string> names;   // the variables it declares
    std::vector<std::string> type_words;  // its type's words, qualifiers left out ("unsigned", "int")
};

// A for loop with a three-part header, for the transformations (grammar/transforms.cpp).
struct LoopDraft {
    std::string function;
    int for_token = 0;
    int open = 0, close = 0;            // the header's parentheses
    int first_semicolon = 0, second_semicolon = 0;
    int body_first = 0, body_end = 0;   // the body statement's tokens [body_first, body_end)
    bool braced = false;                // the body is a { } block (body_first is its '{')
    std::size_t pragma_begin = 0;       // its unroll pragma's '#' when it has one, else the `for`
    int loop_depth = 0;                 // loops around it
};

// A declaration statement, with the block it stands in directly ('{' token; -1: a braceless body).
struct DeclarationDraft {
    int first_token = 0;
    int semicolon = 0;
    int block = -1;
    std::vector<Declared> names;
};

// An if statement, for the bounds checks a transformation may drop.
struct IfDraft {
    std::string function;
    int if_token = 0;
    int open = 0, close = 0;  // the condition's parentheses
    int then_end = 0;         // past the then statement
    bool has_else = false;
    int loop_depth = 0;
};

struct BodyFacts {
    std::vector<LoopDraft> loops;
    std::vector<DeclarationDraft> declarations;
    std::vector<IfDraft> ifs;
    std::vector<RuleDraft> rules;
    std::vector<SharedDeclaration> shared;
    std::map<std::string, std::set<std::string>> locals;  // function -> names declared in its body
    std::map<std::string, std::set<std::string>> types;   // name -> every type it is declared with
    std::set<std::string> called;  // identifiers used as callees (for finding helpers)
};

// A type as written, with spaces kept only between words: "const Prim &" -> "const Prim&".
std::string type_key(std::string_view written);

// Adds the rules of one function's body to `facts`, and its parameters' types to facts.types.
void parse_function_body(const Scan& scan, const FunctionDefinition& function, BodyFacts& facts);

// Identifiers called in a body (name followed by '(' or '<'), to follow helper functions.
std::set<std::string> called_names(const Scan& scan, const FunctionDefinition& function);

// Local names among the slot's tokens, skipping members after '.', '->' and '::', and the locals
// the macros it uses mention (DISPARITY(i) hiding disparity_pixel[i]); sorted.
std::vector<std::string> local_uses(const Scan& scan, int first_token, int end_token, const std::set<std::string>& locals,
                                    const std::map<std::string, std::vector<std::string>>& macro_names);

}  // namespace gi::grammar_detail
