#include "grammar/functions.hpp"

#include <set>

namespace gi::grammar_detail {
namespace {

// Words that may stand before '(' in a declaration without being the function's name.
const std::set<std::string_view> kAttributeWords = {
    "__launch_bounds__", "__attribute__", "alignas", "__align__", "__declspec", "decltype", "noexcept",
    "throw", "__maxnreg__", "__cluster_dims__", "__nv_register_params__", "operator", "sizeof", "if",
    "while", "for", "switch", "return", "__global__", "__device__", "__host__"};

bool is_cuda_function_marker(const Token& token) {
    return token.identifier() && (token.is("__global__") || token.is("__device__"));
}

int match_of(const Scan& scan, int index) {
    if (index < 0 || static_cast<std::size_t>(index) >= scan.match.size()) return -1;
    return scan.match[static_cast<std::size_t>(index)];
}

bool directive_between(const Scan& scan, const Token& before, const Token& after) {
    for (int line = before.line; line <= after.line && static_cast<std::size_t>(line) < scan.directive_line.size(); ++line)
        if (scan.directive_line[static_cast<std::size_t>(line)] && line != before.line && line != after.line) return true;
    return false;
}

// Walks back over declaration specifiers, template headers, extern "C" and attributes.
int declaration_start(const Scan& scan, int marker) {
    int first = marker;
    while (first > 0) {
        const Token& previous = scan.tokens[static_cast<std::size_t>(first - 1)];
        if (directive_between(scan, previous, scan.tokens[static_cast<std::size_t>(first)])) break;
        if (previous.is(";") || previous.is("{") || previous.is("}")) break;
        if (previous.is(")") || previous.is("]")) {
            const int open = match_of(scan, first - 1);
            if (open <= 0) break;
            if (previous.is("]")) {
                // [[nodiscard]]: the outer '[' directly holds another.
                if (!scan.tokens[static_cast<std::size_t>(open + 1)].is("[")) break;
                first = open;
            } else {
                // __attribute__((x)), __launch_bounds__(n): part of the declaration.
                const Token& before = scan.tokens[static_cast<std::size_t>(open - 1)];
                if (!before.identifier() || !kAttributeWords.count(before.text)) break;
                first = open - 1;
            }
            continue;
        }
        if (previous.is(":") || previous.is("=")) break;
        --first;
    }
    return first;
}

}  // namespace

std::vector<FunctionDefinition> find_cuda_functions(const Scan& scan) {
    std::vector<FunctionDefinition> found;
    const int count = static_cast<int>(scan.tokens.size());
    int skip_until = -1;  // inside the body of a function already found
    for (int i = 0; i < count; ++i) {
        if (i <= skip_until) continue;
        const Token& marker = scan.tokens[static_cast<std::size_t>(i)];
        if (!is_cuda_function_marker(marker)) continue;
        // A lambda's "[] __device__ (...)" has no name; a variable has '=' ';' or '[' before any '('.
        int name = -1;
        int params = -1;
        int j = i + 1;
        for (; j < count; ++j) {
            const Token& token = scan.tokens[static_cast<std::size_t>(j)];
            if (token.is(";") || token.is("{") || token.is("}") || token.is("=") || token.is("[")) break;
            if (token.is("(")) {
                const Token& before = scan.tokens[static_cast<std::size_t>(j - 1)];
                if (j - 1 > i && before.identifier() && !kAttributeWords.count(before.text)) {
                    name = j - 1;
                    params = j;
                    break;
                }
                const int close = match_of(scan, j);
                if (close < 0) break;
                j = close;
            }
        }
        if (params < 0) continue;
        const int params_close = match_of(scan, params);
        if (params_close < 0) continue;
        FunctionDefinition function;
        function.name = std::string(scan.tokens[static_cast<std::size_t>(name)].text);
        function.name_token = name;
        function.params_open = params;
        function.params_close = params_close;
        function.first_token = declaration_start(scan, i);
        function.is_template = scan.tokens[static_cast<std::size_t>(function.first_token)].is("template");
        // Qualifiers after the parameter list (const, noexcept, -> type, attributes) end at '{' or ';'.
        for (int k = params_close + 1; k < count; ++k) {
            const Token& token = scan.tokens[static_cast<std::size_t>(k)];
            if (token.is(";") || token.is("=") || token.is("}")) break;
            if (token.is("{")) {
                const int close = match_of(scan, k);
                if (close < 0) break;
                function.body_open = k;
                function.body_close = close;
                break;
            }
            if (token.is("(") || token.is("[")) {
                const int close = match_of(scan, k);
                if (close < 0) break;
                k = close;
            }
        }
        // The other markers of the same declaration (__host__ __device__) must not start another one.
        for (int k = i; k <= params_close; ++k)
            if (is_cuda_function_marker(scan.tokens[static_cast<std::size_t>(k)])) {
                if (scan.tokens[static_cast<std::size_t>(k)].is("__global__")) function.is_global = true;
            }
        skip_until = function.body_open >= 0 ? function.body_close : params_close;
        found.push_back(std::move(function));
    }
    return found;
}

std::vector<ParameterTokens> parse_parameters(const Scan& scan, const FunctionDefinition& function) {
    static const std::set<std::string_view> kTypeWords = {
        "const", "volatile", "__restrict__", "__restrict", "unsigned", "signed", "short", "long", "int",
        "float", "double", "char", "bool", "void", "auto", "struct", "class", "enum", "union", "typename",
        "register", "__grid_constant__"};
    std::vector<ParameterTokens> result;
    const int open = function.params_open;
    const int close = function.params_close;
    int start = open + 1;
    int angle = 0;
    for (int k = open + 1; k <= close; ++k) {
        const Token& token = scan.tokens[static_cast<std::size_t>(k)];
        if (k < close) {
            if (token.is("<")) ++angle;
            else if (token.is(">") && angle > 0) --angle;
            else if (token.is(">>") && angle > 0) angle = angle >= 2 ? angle - 2 : 0;
            if (token.is("(") || token.is("[") || token.is("{")) {
                const int partner = match_of(scan, k);
                if (partner > k && partner < close) k = partner;
                continue;
            }
            if (!token.is(",") || angle > 0) continue;
        }
        // [start, k) is one parameter.
        int end = k;
        for (int e = start; e < k; ++e)
            if (scan.tokens[static_cast<std::size_t>(e)].is("=")) {
                end = e;  // default argument
                break;
            }
        if (end > start && !(end == start + 1 && scan.tokens[static_cast<std::size_t>(start)].is("void"))) {
            ParameterTokens parameter;
            parameter.first_token = start;
            int name = -1;
            int array_at = -1;
            for (int e = start; e < end; ++e) {
                const Token& t = scan.tokens[static_cast<std::size_t>(e)];
                if (t.is("[")) {
                    array_at = e;
                    break;
                }
                if (t.is("(") || t.is("<")) {
                    const int partner = match_of(scan, e);
                    if (t.is("(") && partner > e && partner < end) e = partner;
                    continue;
                }
                if (t.is("*")) parameter.last_star = e;
                if (t.is("&") || t.is("&&")) parameter.is_reference = true;
                if (t.identifier() && !kTypeWords.count(t.text)) name = e;
            }
            // A lone type word ("float*") is an unnamed parameter.
            const bool has_type_before = name > start;
            if (name >= 0 && !has_type_before) name = -1;
            parameter.is_array = array_at >= 0;
            if (parameter.last_star > name && name >= 0) name = -1;
            for (int e = start; e < end; ++e) {
                const Token& t = scan.tokens[static_cast<std::size_t>(e)];
                if (t.is("const")) parameter.parameter.is_const = true;
                if (parameter.last_star >= 0 && e > parameter.last_star && (t.is("__restrict__") || t.is("__restrict")))
                    parameter.restrict_token = e;
            }
            parameter.const_first = scan.tokens[static_cast<std::size_t>(start)].is("const");
            const std::string& text = scan.source->text;
            const Token& first = scan.tokens[static_cast<std::size_t>(start)];
            const Token& last = scan.tokens[static_cast<std::size_t>(end - 1)];
            if (name >= 0) {
                const Token& name_token = scan.tokens[static_cast<std::size_t>(name)];
                parameter.parameter.name = std::string(name_token.text);
                std::string type = trim(std::string_view(text).substr(first.begin, name_token.begin - first.begin));
                if (name < end - 1) type += " " + trim(std::string_view(text).substr(name_token.end, last.end - name_token.end));
                parameter.parameter.type = type;
                parameter.parameter.line = name_token.line;
            } else {
                parameter.parameter.type = trim(std::string_view(text).substr(first.begin, last.end - first.begin));
                parameter.parameter.line = first.line;
            }
            parameter.parameter.is_pointer = parameter.last_star >= 0 || parameter.is_array;
            result.push_back(std::move(parameter));
        }
        start = k + 1;
    }
    return result;
}

std::string function_near(const Scan& scan, std::size_t offset) {
    for (int i = static_cast<int>(scan.tokens.size()) - 1; i >= 0; --i) {
        const Token& token = scan.tokens[static_cast<std::size_t>(i)];
        if (token.begin > offset || !is_cuda_function_marker(token)) continue;
        for (int j = i + 1; j < static_cast<int>(scan.tokens.size()) && j < i + 64; ++j) {
            const Token& t = scan.tokens[static_cast<std::size_t>(j)];
            if (t.is(";") || t.is("{")) break;
            const Token& before = scan.tokens[static_cast<std::size_t>(j - 1)];
            if (t.is("(") && before.identifier() && !kAttributeWords.count(before.text))
                return std::string(token.is("__global__") ? "the kernel '" : "the function '") +
                       std::string(before.text) + "' starts at line " + std::to_string(token.line);
        }
    }
    return {};
}

}  // namespace gi::grammar_detail
