#include "grammar/vector_load.hpp"

#include <algorithm>
#include <cctype>
#include <optional>

#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

bool vec_word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct PointerUses {
    std::vector<std::pair<std::size_t, std::size_t>> reads;  // [begin, end) of each `p[V]` in the text
    bool other_use = false;                                   // p used some other way
};

// Where `text` uses `pointer`: as a plain read p[V] (not written, not its address taken) or not.
// nullopt when the text holds an unterminated comment or literal.
std::optional<PointerUses> pointer_uses(const std::string& text, const std::string& pointer, const std::string& variable) {
    std::string masked;
    try {
        masked = mask_comments_and_strings(make_source_file("vec", text));
    } catch (const Error&) {
        return std::nullopt;
    }
    auto skip_space = [&](std::size_t i) {
        while (i < masked.size() && std::isspace(static_cast<unsigned char>(masked[i]))) ++i;
        return i;
    };
    auto last_before = [&](std::size_t i) -> std::string {  // the two characters before, spaces skipped
        while (i > 0 && std::isspace(static_cast<unsigned char>(masked[i - 1]))) --i;
        return masked.substr(i >= 2 ? i - 2 : 0, i >= 2 ? 2 : i);
    };
    PointerUses uses;
    for (std::size_t i = 0; i < masked.size();) {
        if (!vec_word_char(masked[i])) {
            ++i;
            continue;
        }
        std::size_t end = i;
        while (end < masked.size() && vec_word_char(masked[end])) ++end;
        const std::string before = last_before(i);
        const bool member = !before.empty() && (before.back() == '.' || before == "->" || before == "::");
        if (masked.compare(i, end - i, pointer) != 0 || end - i != pointer.size() || member) {
            i = end;
            continue;
        }
        // p [ V ]: k ends at the ']' when it is one.
        std::size_t k = skip_space(end);
        bool read = k < masked.size() && masked[k] == '[';
        if (read) {
            k = skip_space(k + 1);
            read = masked.compare(k, variable.size(), variable) == 0 &&
                   (k + variable.size() == masked.size() || !vec_word_char(masked[k + variable.size()]));
        }
        if (read) {
            k = skip_space(k + variable.size());
            read = k < masked.size() && masked[k] == ']';
        }
        if (!read) {
            uses.other_use = true;
            i = end;
            continue;
        }
        const std::size_t after = skip_space(k + 1);
        // Not written (p[V] = x, p[V]++, ++p[V]) and not its address (&p[V]).
        const std::string next = masked.substr(after, 2);
        if (read && ((next.size() == 2 && next[1] == '=' && std::string("+-*/%&|^").find(next[0]) != std::string::npos) ||
                     (!next.empty() && next[0] == '=' && next != "==") || next == "++" || next == "--" ||
                     (!before.empty() && ((before.back() == '&' && before != "&&") || before == "++" || before == "--"))))
            read = false;
        if (read)
            uses.reads.emplace_back(i, k + 1);
        else
            uses.other_use = true;
        i = end;
    }
    return uses;
}

bool assignment_token(const std::string& t) {
    return t == "=" || t == "+=" || t == "-=" || t == "*=" || t == "/=" || t == "%=" || t == "&=" || t == "|=" ||
           t == "^=" || t == "<<=" || t == ">>=";
}

// Whether the statement text stores to memory: an assignment, increment or decrement whose target
// is an element, a member through a pointer or a dereference (a local array counts: conservative).
bool stores_to_memory(const std::vector<CodeToken>& tokens) {
    auto memory_token = [](const std::string& t) { return t == "[" || t == "]" || t == "->" || t == "*" || t == ")"; };
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        const std::string& t = tokens[k].text;
        const bool postfix = (t == "++" || t == "--") && k > 0 &&
                             (tokens[k - 1].identifier || tokens[k - 1].text == "]" || tokens[k - 1].text == ")");
        if (assignment_token(t) || postfix) {
            // The target: back over names, members and subscripts to the statement's start.
            int depth = 0;
            for (std::size_t j = k; j > 0; --j) {
                const std::string& u = tokens[j - 1].text;
                if (u == "]" || u == ")") ++depth;
                if ((u == "[" || u == "(") && depth-- == 0) break;
                if (depth == 0 && (u == ";" || u == "{" || u == "}" || u == ",")) break;
                if (memory_token(u) && !(u == "*" && j >= 2 && tokens[j - 2].identifier && depth == 0 &&
                                         tokens[j - 2].text != "return"))
                    return true;
                if (depth == 0 && tokens[j - 1].identifier && j >= 2 && tokens[j - 2].identifier) break;  // `float t`
            }
        } else if (t == "++" || t == "--") {
            for (std::size_t j = k + 1; j < tokens.size(); ++j) {
                const std::string& u = tokens[j].text;
                if (u == ";" || u == "," || u == ")") break;
                if (memory_token(u)) return true;
            }
        }
    }
    return false;
}

const char* const kLanes[] = {"x", "y", "z", "w"};

}  // namespace

std::string vector_load_blocker(std::string_view body, const CountedLoop& loop, const std::vector<VectorRead>& reads) {
    std::string why = unroll_blocker(body, loop);
    if (!why.empty()) return why;
    if (loop.stride != "1") return "its step is " + loop.stride + ", not 1";
    const auto tokens = code_tokens(body);
    if (!tokens) return "its body holds a preprocessor line";
    if (calls_impure_function(*tokens)) return "its body calls a function (a barrier, an atomic, a helper)";
    if (reads.empty()) return "it reads no const float* parameter";
    const std::string text(body);
    bool all_restricted = true;
    for (const VectorRead& read : reads) {
        const auto uses = pointer_uses(text, read.pointer, loop.variable);
        if (!uses) return "its body holds an unterminated comment or literal";
        if (uses->other_use)
            return "its body uses " + read.pointer + " other than to read " + read.pointer + "[" + loop.variable + "]";
        if (uses->reads.empty()) return "its body no longer reads " + read.pointer + "[" + loop.variable + "]";
        all_restricted = all_restricted && read.restricted;
    }
    if (!all_restricted && stores_to_memory(*tokens))
        return "its body stores to memory that a pointer it loads from may alias (not __restrict__)";
    return "";
}

std::string vector_load_body(const std::string& body, const std::string& step, const CountedLoop& loop,
                             const std::vector<VectorRead>& reads, int width, const std::string& lane_name) {
    const std::string vector_type = width == 4 ? "float4" : "float2";
    const std::string bytes = std::to_string(width * 4);
    std::string condition = unrolled_condition(loop, width);
    std::string loads;
    // Each read of p in the body, in text order, with the lane variable it becomes.
    std::vector<std::pair<std::pair<std::size_t, std::size_t>, std::string>> spans;
    for (const VectorRead& read : reads) {
        const std::string lane = lane_name + "_" + read.pointer;
        condition += " && reinterpret_cast<unsigned long long>(" + read.pointer + " + " + loop.variable + ") % " + bytes +
                     " == 0";
        loads += "const " + vector_type + " " + lane + " = *reinterpret_cast<const " + vector_type + "*>(" + read.pointer +
                 " + " + loop.variable + ");\n";
        const std::optional<PointerUses> uses = pointer_uses(body, read.pointer, loop.variable);
        for (const auto& span : uses->reads) spans.push_back({span, lane});
    }
    std::sort(spans.begin(), spans.end());
    std::string out = "{ if (" + condition + ") {\n" + loads;
    for (int k = 0; k < width; ++k) {
        std::string copy = body;
        for (auto span = spans.rbegin(); span != spans.rend(); ++span)
            copy.replace(span->first.first, span->first.second - span->first.first, span->second + "." + kLanes[k]);
        if (copy.empty() || copy.front() != '{') copy = "{\n" + copy + "\n}";
        out += copy + (k + 1 < width ? " " + step + ";\n" : "\n");
    }
    const std::string original = !body.empty() && body.front() == '{' ? body : "{\n" + body + "\n}";
    return out + "} else " + original + " }";
}

}  // namespace gi
