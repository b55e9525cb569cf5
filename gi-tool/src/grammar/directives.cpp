#include "grammar/directives.hpp"

#include <algorithm>
#include <utility>

#include "util/error.hpp"

namespace gi::grammar_detail {
namespace {

struct OpenChain {
    int opening_directive = -1;
    std::vector<std::string> earlier;  // expressions of the branches so far
    std::size_t region_begin = 0;
    int region_condition = -1;
    int region_directive = -1;
    bool seen_else = false;
};

std::string first_word(const std::string& text) {
    std::size_t end = 0;
    while (end < text.size() && is_identifier_char(text[end])) ++end;
    return text.substr(0, end);
}

std::string combine(const std::vector<std::string>& earlier, const std::string& own) {
    std::string expression;
    for (const std::string& previous : earlier) {
        if (!expression.empty()) expression += " && ";
        expression += "!(" + previous + ")";
    }
    if (!own.empty()) {
        if (!expression.empty()) expression += " && (" + own + ")";
        else expression = own;
    }
    return expression;
}

// Replacement text with comments removed (the masked text) but string contents kept (the original).
std::string macro_text(const std::string& original, const std::string& masked, std::size_t begin, std::size_t end) {
    std::string text;
    bool in_literal = false;
    char quote = 0;
    for (std::size_t k = begin; k < end; ++k) {
        const char m = masked[k];
        if (in_literal) {
            text += original[k];
            if (m == quote && original[k] == quote) in_literal = false;
            continue;
        }
        if ((m == '"' || m == '\'') && original[k] == m) {
            in_literal = true;
            quote = m;
            text += m;
            continue;
        }
        if (m == '\\' && k + 1 < end && (masked[k + 1] == '\n' || masked[k + 1] == '\r')) continue;
        text += (m == '\n' || m == '\r' || m == '\t') ? ' ' : m;
    }
    // Collapse runs of blanks outside literals enough for comparisons like value == "0".
    std::string collapsed;
    for (char c : text) {
        if (c == ' ' && (collapsed.empty() || collapsed.back() == ' ')) continue;
        collapsed += c;
    }
    return trim(collapsed);
}

bool balanced(const std::string& text) {
    int braces = 0;
    int parens = 0;
    for (char c : text) {
        if (c == '{') ++braces;
        if (c == '}') --braces;
        if (c == '(') ++parens;
        if (c == ')') --parens;
        if (braces < 0 || parens < 0) return false;
    }
    return braces == 0 && parens == 0;
}

}  // namespace

void condition_names(const std::string& expression, std::vector<std::string>& names, std::vector<std::string>& calls) {
    std::size_t i = 0;
    while (i < expression.size()) {
        const char c = expression[i];
        if (c >= '0' && c <= '9') {
            while (i < expression.size() && is_identifier_char(expression[i])) ++i;
            continue;
        }
        if (!is_identifier_char(c)) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < expression.size() && is_identifier_char(expression[j])) ++j;
        const std::string name = expression.substr(i, j - i);
        std::size_t k = j;
        while (k < expression.size() && (expression[k] == ' ' || expression[k] == '\t')) ++k;
        i = j;
        if (name == "defined" || name == "true" || name == "false" || name == "__has_include") continue;
        if (k < expression.size() && expression[k] == '(') calls.push_back(name);
        else names.push_back(name);
    }
}

bool used_as_boolean(const std::string& expression, const std::string& name) {
    // Tokens: identifiers and numbers as words, operators of one or two characters.
    std::vector<std::string> tokens;
    for (std::size_t i = 0; i < expression.size();) {
        const char c = expression[i];
        if (c == ' ' || c == '\t') {
            ++i;
        } else if (is_identifier_char(c)) {
            std::size_t j = i;
            while (j < expression.size() && is_identifier_char(expression[j])) ++j;
            tokens.push_back(expression.substr(i, j - i));
            i = j;
        } else {
            const std::string two = expression.substr(i, 2);
            const bool pair = two == "&&" || two == "||" || two == "==" || two == "!=" || two == "<=" || two == ">=" ||
                              two == "<<" || two == ">>";
            tokens.push_back(pair ? two : std::string(1, c));
            i += pair ? 2 : 1;
        }
    }
    auto boolean_neighbour = [](const std::string& t) { return t == "&&" || t == "||" || t == "!" || t == "(" || t == ")"; };
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (tokens[k] != name) continue;
        std::size_t before = k;
        while (before > 0 && tokens[before - 1] == "(") --before;
        if (before > 0 && tokens[before - 1] == "defined") continue;
        std::size_t after = k + 1;
        while (after < tokens.size() && tokens[after] == ")") ++after;
        if (before > 0 && !boolean_neighbour(tokens[before - 1])) return false;
        if (after < tokens.size() && !boolean_neighbour(tokens[after])) return false;
    }
    return true;
}

std::vector<int> DirectiveFacts::enclosing(std::size_t offset) const {
    std::vector<std::pair<std::size_t, int>> found;
    for (const ConditionalRegion& region : regions)
        if (region.begin <= offset && offset < region.end) found.emplace_back(region.begin, region.condition);
    std::sort(found.begin(), found.end());
    std::vector<int> result;
    for (const auto& entry : found) result.push_back(entry.second);
    return result;
}

std::map<std::string, std::vector<std::string>> macro_identifiers(const DirectiveFacts& facts) {
    std::map<std::string, std::vector<std::string>> result;
    for (const MacroDefinition& macro : facts.defines) {
        std::vector<std::string>& names = result[macro.name];
        const std::string& value = macro.value;
        bool in_literal = false;
        for (std::size_t i = 0; i < value.size();) {
            const char c = value[i];
            if (c == '"') in_literal = !in_literal;
            if (in_literal || !is_identifier_char(c) || (c >= '0' && c <= '9')) {
                // Skip a number whole, so the 'f' of 1.0f is not a name.
                if (!in_literal && c >= '0' && c <= '9')
                    while (i < value.size() && is_identifier_char(value[i])) ++i;
                else
                    ++i;
                continue;
            }
            std::size_t j = i;
            while (j < value.size() && is_identifier_char(value[j])) ++j;
            const std::string name = value.substr(i, j - i);
            const bool member = i > 0 && (value[i - 1] == '.' || (i > 1 && value[i - 2] == '-' && value[i - 1] == '>'));
            if (!member && std::find(macro.parameters.begin(), macro.parameters.end(), name) == macro.parameters.end() &&
                std::find(names.begin(), names.end(), name) == names.end())
                names.push_back(name);
            i = j;
        }
    }
    return result;
}

namespace {

// The macro X a branch opener tests for being defined ("#ifdef X", "#if defined(X)", "#elif
// defined X", "#elifdef X"), or "" when it tests anything else.
std::string tested_macro(const Directive& opener) {
    std::string rest;
    for (char c : opener.rest)
        if (c != ' ' && c != '\t') rest += c;
    if (opener.keyword == "ifdef" || opener.keyword == "elifdef") return first_word(opener.rest);
    if (opener.keyword != "if" && opener.keyword != "elif") return "";
    if (rest.rfind("defined(", 0) == 0 && rest.back() == ')') rest = rest.substr(8, rest.size() - 9);
    else if (rest.rfind("defined", 0) == 0) rest = rest.substr(7);
    else return "";
    return !rest.empty() && std::all_of(rest.begin(), rest.end(), is_identifier_char) ? rest : "";
}

// The tunable-size idiom of many codes (Rodinia's RD_WG_SIZE, say): a size the build may set with
// -D, else the file's default,
//     #ifdef RD_WG_SIZE_0            (any number of such branches)
//     #define BLOCK_SIZE RD_WG_SIZE_0
//     #else
//     #define BLOCK_SIZE 16
//     #endif
// The #else branch's definition is then the file's own value, as inside "#ifndef BLOCK_SIZE".
bool overridable_default(const Scan& scan, const DirectiveFacts& facts, const MacroDefinition& macro) {
    const std::size_t hash = scan.directives[static_cast<std::size_t>(macro.directive)].hash;
    const std::vector<int> around = facts.enclosing(hash);
    if (around.size() != 1) return false;
    const ConditionalRegion* branch = nullptr;
    for (const ConditionalRegion& region : facts.regions)
        if (region.condition == around[0] && hash >= region.begin && hash < region.end) branch = &region;
    if (!branch || scan.directives[static_cast<std::size_t>(branch->opening_directive)].keyword != "else") return false;
    // Back from the #else to the #if of its chain: each branch opener at the chain's depth.
    std::vector<int> openers;
    int depth = 0;
    for (int d = branch->opening_directive - 1; d >= 0; --d) {
        const std::string& keyword = scan.directives[static_cast<std::size_t>(d)].keyword;
        if (keyword == "endif") ++depth;
        else if (depth > 0 && (keyword == "if" || keyword == "ifdef" || keyword == "ifndef")) --depth;
        else if (depth == 0 && (keyword == "elif" || keyword == "elifdef" || keyword == "elifndef")) openers.push_back(d);
        else if (depth == 0 && (keyword == "if" || keyword == "ifdef" || keyword == "ifndef")) {
            openers.push_back(d);
            break;
        }
    }
    if (openers.empty()) return false;
    for (const int opener : openers) {
        const std::string tested = tested_macro(scan.directives[static_cast<std::size_t>(opener)]);
        if (tested.empty()) return false;
        // This branch defines the macro as the tested one, and only so.
        bool passes_through = false;
        for (const MacroDefinition& other : facts.defines) {
            if (other.name != macro.name) continue;
            const std::vector<int> other_around = facts.enclosing(scan.directives[static_cast<std::size_t>(other.directive)].hash);
            bool in_branch = false;
            for (const ConditionalRegion& region : facts.regions)
                if (region.opening_directive == opener && !other_around.empty() && region.condition == other_around.back() &&
                    other_around.size() == 1)
                    in_branch = true;
            if (!in_branch) continue;
            if (other.value != tested) return false;
            passes_through = true;
        }
        if (!passes_through) return false;
    }
    return true;
}

// The directives of an include guard around the whole file (nothing but blanks and comments
// before "#ifndef G" / "#define G" and after its "#endif"), or {-1, -1}. Such a guard is no
// condition: the file's one compile takes it, so what it holds is at file level (a kernel header's
// parameters, KERNEL reduction_kernel.cuh).
std::pair<int, int> include_guard(const Scan& scan) {
    const std::vector<Directive>& directives = scan.directives;
    const std::pair<int, int> none{-1, -1};
    if (directives.size() < 3) return none;
    const Directive& open = directives.front();
    const Directive& close = directives.back();
    const std::string guard = first_word(open.rest);
    if (open.keyword != "ifndef" || guard.empty() || directives[1].keyword != "define" ||
        first_word(directives[1].rest) != guard || close.keyword != "endif")
        return none;
    const char* const blank = " \t\r\n\f\v";  // comments (and a leading BOM) are masked to blanks
    if (scan.masked.find_first_not_of(blank) != open.hash) return none;
    if (scan.masked.find_first_not_of(blank, close.next) != std::string::npos) return none;
    int depth = 0;  // the #endif must close the #ifndef, which has no #else or #elif
    for (std::size_t d = 1; d + 1 < directives.size(); ++d) {
        const std::string& keyword = directives[d].keyword;
        if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
            ++depth;
        } else if (keyword == "endif") {
            if (depth == 0) return none;
            --depth;
        } else if (depth == 0 && (keyword == "elif" || keyword == "elifdef" || keyword == "elifndef" || keyword == "else"))
            return none;
    }
    if (depth != 0) return none;
    return {0, static_cast<int>(directives.size()) - 1};
}

}  // namespace

DirectiveFacts analyse_directives(const Scan& scan) {
    const SourceFile& source = *scan.source;
    DirectiveFacts facts;
    facts.directive_at_line.assign(source.line_starts.size() + 2, -1);
    std::vector<OpenChain> open;
    auto open_region = [&](OpenChain& chain, int directive, const std::string& expression) {
        chain.region_begin = scan.directives[static_cast<std::size_t>(directive)].next;
        chain.region_condition = static_cast<int>(facts.conditions.size());
        chain.region_directive = directive;
        facts.conditions.push_back({expression, scan.directives[static_cast<std::size_t>(directive)].line});
    };
    auto close_region = [&](OpenChain& chain, std::size_t end) {
        facts.regions.push_back({chain.region_begin, end, chain.region_condition, chain.region_directive});
    };
    const std::pair<int, int> guard = include_guard(scan);
    for (std::size_t d = 0; d < scan.directives.size(); ++d) {
        const Directive& directive = scan.directives[d];
        const int index = static_cast<int>(d);
        facts.directive_at_line[static_cast<std::size_t>(directive.line)] = index;
        if (index == guard.first || index == guard.second) continue;
        const std::string& keyword = directive.keyword;
        if (keyword == "if" || keyword == "ifdef" || keyword == "ifndef") {
            OpenChain chain;
            chain.opening_directive = index;
            std::string expression;
            if (keyword == "if") expression = directive.rest;
            else expression = std::string(keyword == "ifndef" ? "!" : "") + "defined(" + first_word(directive.rest) + ")";
            if ((keyword != "if" && first_word(directive.rest).empty()) || (keyword == "if" && expression.empty()))
                throw_at(source.path, directive.line, "#" + keyword + " without a condition",
                         "write the macro or expression it tests");
            chain.earlier.push_back(expression);
            open_region(chain, index, expression);
            open.push_back(std::move(chain));
        } else if (keyword == "elif" || keyword == "elifdef" || keyword == "elifndef" || keyword == "else") {
            if (open.empty())
                throw_at(source.path, directive.line, "#" + keyword + " without #if",
                         "remove it or add the #if it belongs to");
            OpenChain& chain = open.back();
            if (chain.seen_else)
                throw_at(source.path, directive.line, "#" + keyword + " after #else (the #if is at line " +
                         std::to_string(scan.directives[static_cast<std::size_t>(chain.opening_directive)].line) + ")",
                         "an #if chain has at most one #else, at its end");
            close_region(chain, directive.line_begin);
            std::string own;
            if (keyword == "elif") own = directive.rest;
            else if (keyword != "else") own = std::string(keyword == "elifndef" ? "!" : "") + "defined(" + first_word(directive.rest) + ")";
            if (keyword != "else" && trim(directive.rest).empty())
                throw_at(source.path, directive.line, "#" + keyword + " without a condition",
                         "write the macro or expression it tests");
            open_region(chain, index, combine(chain.earlier, own));
            if (keyword == "else") chain.seen_else = true;
            else chain.earlier.push_back(own);
        } else if (keyword == "endif") {
            if (open.empty())
                throw_at(source.path, directive.line, "#endif without #if", "remove it or add the #if it closes");
            close_region(open.back(), directive.line_begin);
            open.pop_back();
        }
    }
    if (!open.empty()) {
        const Directive& directive = scan.directives[static_cast<std::size_t>(open.back().opening_directive)];
        throw_at(source.path, directive.line, "#" + directive.keyword + " without #endif",
                 "add the #endif that closes it");
    }
    std::sort(facts.regions.begin(), facts.regions.end(),
              [](const ConditionalRegion& a, const ConditionalRegion& b) { return a.begin < b.begin; });

    for (std::size_t d = 0; d < scan.directives.size(); ++d) {
        const Directive& directive = scan.directives[d];
        if (directive.keyword != "define") continue;
        // The name and whether '(' follows it directly come from the masked text after "define".
        const std::size_t define_at = scan.masked.find("define", directive.hash);
        std::size_t p = define_at + 6;
        while (p < directive.content_end && (scan.masked[p] == ' ' || scan.masked[p] == '\t')) ++p;
        std::size_t q = p;
        while (q < directive.content_end && is_identifier_char(scan.masked[q])) ++q;
        if (q == p) continue;  // "#define" alone: the compiler reports it
        MacroDefinition macro;
        macro.name = scan.masked.substr(p, q - p);
        macro.directive = static_cast<int>(d);
        macro.function_like = q < directive.content_end && scan.masked[q] == '(';
        std::size_t value_begin = q;
        if (macro.function_like) {
            const std::size_t close = scan.masked.find(')', q);
            value_begin = close == std::string::npos || close > directive.content_end ? directive.content_end : close + 1;
            std::string name;
            for (std::size_t k = q + 1; k < value_begin; ++k) {
                if (is_identifier_char(scan.masked[k])) {
                    name += scan.masked[k];
                } else if (!name.empty()) {
                    macro.parameters.push_back(name);
                    name.clear();
                }
            }
        }
        macro.value = macro_text(source.text, scan.masked, value_begin, directive.content_end);
        macro.unbalanced = !balanced(macro.value);
        const std::vector<int> around = facts.enclosing(directive.hash);
        macro.conditional = !around.empty();
        if (around.size() == 1) {
            // Directly inside the first branch of "#ifndef NAME" / "#if !defined(NAME)".
            for (const ConditionalRegion& region : facts.regions) {
                if (region.condition != around[0]) continue;
                const Directive& opener = scan.directives[static_cast<std::size_t>(region.opening_directive)];
                std::string rest;
                for (char c : opener.rest)
                    if (c != ' ' && c != '\t') rest += c;
                macro.default_guarded = (opener.keyword == "ifndef" && first_word(opener.rest) == macro.name) ||
                                        (opener.keyword == "if" && (rest == "!defined(" + macro.name + ")" ||
                                                                    rest == "!defined" + macro.name));
            }
        }
        facts.defines.push_back(std::move(macro));
    }
    for (MacroDefinition& macro : facts.defines)
        if (!macro.default_guarded && macro.conditional && overridable_default(scan, facts, macro))
            macro.default_guarded = true;
    return facts;
}

}  // namespace gi::grammar_detail
