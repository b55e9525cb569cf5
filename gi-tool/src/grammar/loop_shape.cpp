#include "grammar/loop_shape.hpp"

#include <algorithm>
#include <cctype>

#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

const char* const kLongPunct[] = {"<<=", ">>=", "->", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
                                  "<=",  ">=",  "==", "!=", "&&", "||", "<<", ">>", "::"};

bool assignment(const std::string& t) {
    return t == "=" || t == "+=" || t == "-=" || t == "*=" || t == "/=" || t == "%=" || t == "&=" || t == "|=" ||
           t == "^=" || t == "<<=" || t == ">>=";
}

// A token after which '*' or '&' is unary (a dereference, an address) rather than a product.
bool before_unary(const std::vector<CodeToken>& tokens, std::size_t k) {
    if (k == 0) return true;
    const CodeToken& before = tokens[k - 1];
    if (before.identifier) return before.text == "return";
    if (std::isdigit(static_cast<unsigned char>(before.text[0]))) return false;
    return before.text != ")" && before.text != "]";
}

std::string joined(const std::vector<CodeToken>& tokens, std::size_t from, std::size_t to) {
    // Spaces around operators only, as a person writes it: "blockDim.x * gridDim.x", "min(n, m)".
    std::string out;
    for (std::size_t k = from; k < to; ++k) {
        const std::string& t = tokens[k].text;
        const std::string& before = k > from ? tokens[k - 1].text : t;
        const bool tight = k == from || before == "." || before == "->" || before == "::" || before == "(" ||
                           before == "[" || t == "." || t == "->" || t == "::" || t == ")" || t == "]" || t == "," ||
                           (t == "(" && tokens[k - 1].identifier) || t == "[";
        out += (tight ? "" : " ") + t;
    }
    return out;
}

// E or C of a counted loop: the same value before and after a trip of the body, unless the body
// writes a name it reads (unroll_blocker checks that).
bool plain_expression(const std::vector<CodeToken>& tokens, std::size_t from, std::size_t to, std::string& why) {
    if (from >= to) {
        why = "an empty bound or step";
        return false;
    }
    for (std::size_t k = from; k < to; ++k) {
        const std::string& t = tokens[k].text;
        if (t == "[" || t == "->" || assignment(t) || t == "++" || t == "--") {
            why = "its bound or step reads memory or changes a value ('" + t + "')";
            return false;
        }
        if ((t == "*" || t == "&") && (k == from || before_unary(tokens, k))) {
            why = "its bound or step reads through a pointer";
            return false;
        }
    }
    std::vector<CodeToken> part(tokens.begin() + static_cast<std::ptrdiff_t>(from),
                                tokens.begin() + static_cast<std::ptrdiff_t>(to));
    if (calls_impure_function(part)) {
        why = "its bound or step calls a function";
        return false;
    }
    return true;
}

bool is_number(const std::string& text) {
    return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
}

}  // namespace

std::optional<std::vector<CodeToken>> code_tokens(std::string_view text) {
    std::string masked;
    try {
        masked = mask_comments_and_strings(make_source_file("transform", std::string(text)));
    } catch (const Error&) {
        return std::nullopt;
    }
    std::vector<CodeToken> tokens;
    bool line_start = true;
    for (std::size_t i = 0; i < masked.size();) {
        const char c = masked[i];
        if (c == '\n') line_start = true;
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
            continue;
        }
        if (c == '#' && line_start) return std::nullopt;
        line_start = false;
        std::size_t end = i + 1;
        if (word_char(c)) {
            const bool number = std::isdigit(static_cast<unsigned char>(c)) != 0;
            while (end < masked.size() &&
                   (word_char(masked[end]) || (number && masked[end] == '.') ||
                    (number && (masked[end] == '+' || masked[end] == '-') &&
                     (masked[end - 1] == 'e' || masked[end - 1] == 'E'))))
                ++end;
            tokens.push_back({masked.substr(i, end - i), !number});
        } else if (c == '"' || c == '\'') {
            end = masked.find(c, i + 1);
            end = end == std::string::npos ? masked.size() : end + 1;
            tokens.push_back({masked.substr(i, end - i), false});
        } else {
            for (const char* punct : kLongPunct)
                if (masked.compare(i, std::char_traits<char>::length(punct), punct) == 0) {
                    end = i + std::char_traits<char>::length(punct);
                    break;
                }
            tokens.push_back({masked.substr(i, end - i), false});
        }
        i = end;
    }
    return tokens;
}

bool calls_impure_function(const std::vector<CodeToken>& tokens) {
    static const std::set<std::string> kPure = {
        "min",    "max",    "fminf",   "fmaxf",   "fmin",   "fmax",     "abs",      "fabsf",    "fabs",
        "sqrtf",  "sqrt",   "rsqrtf",  "rsqrt",   "expf",   "exp",      "__expf",   "logf",     "log",
        "__logf", "sinf",   "cosf",    "powf",    "floorf", "ceilf",    "floor",    "ceil",     "__ldg",
        "__fdividef", "__fmul_rn", "__fmaf_rn", "fmaf", "__mul24", "__umul24", "int", "unsigned", "float",
        "double", "long", "short", "char", "bool", "size_t", "static_cast", "sizeof"};
    for (std::size_t k = 0; k + 1 < tokens.size(); ++k)
        if (tokens[k].identifier && tokens[k + 1].text == "(" && !kPure.count(tokens[k].text)) return true;
    return false;
}

std::set<std::string> written_names(const std::vector<CodeToken>& tokens) {
    std::set<std::string> written;
    // The variable an lvalue ending just before `k` names: a[i][j] -> a, p.x -> p, *q -> q.
    auto base_before = [&](std::size_t k) {
        std::size_t j = k;
        while (j > 0) {
            const std::string& t = tokens[j - 1].text;
            if (t == "]" || t == ")") {
                int depth = 0;
                while (j > 0) {
                    const std::string& u = tokens[j - 1].text;
                    if (u == "]" || u == ")") ++depth;
                    if (u == "[" || u == "(") --depth;
                    // Inside parentheses: (*p).x = ... writes through p.
                    if (t == ")" && tokens[j - 1].identifier) written.insert(tokens[j - 1].text);
                    --j;
                    if (depth == 0) break;
                }
                continue;
            }
            if (tokens[j - 1].identifier) {
                if (j >= 2 && (tokens[j - 2].text == "." || tokens[j - 2].text == "->")) {
                    j -= 2;
                    continue;
                }
                written.insert(tokens[j - 1].text);
            }
            return;
        }
    };
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        const std::string& t = tokens[k].text;
        if (assignment(t)) {
            base_before(k);
        } else if (t == "++" || t == "--") {
            if (k > 0 && (tokens[k - 1].identifier || tokens[k - 1].text == "]" || tokens[k - 1].text == ")"))
                base_before(k);
            else if (k + 1 < tokens.size() && tokens[k + 1].identifier)
                written.insert(tokens[k + 1].text);
        } else if (t == "&" && before_unary(tokens, k) && k + 1 < tokens.size() && tokens[k + 1].identifier) {
            written.insert(tokens[k + 1].text);
        }
    }
    return written;
}

std::set<std::string> read_names(const std::vector<CodeToken>& tokens) {
    std::set<std::string> names;
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        if (!tokens[k].identifier) continue;
        if (k > 0 && (tokens[k - 1].text == "." || tokens[k - 1].text == "->")) continue;
        if (k + 1 < tokens.size() && tokens[k + 1].text == "(") continue;
        names.insert(tokens[k].text);
    }
    return names;
}

std::optional<CountedLoop> counted_loop(std::string_view condition, std::string_view step, std::string& why) {
    const auto cond = code_tokens(condition);
    const auto inc = code_tokens(step);
    if (!cond || !inc) {
        why = "its header holds a preprocessor line";
        return std::nullopt;
    }
    CountedLoop loop;
    if (cond->size() < 3 || !(*cond)[0].identifier || ((*cond)[1].text != "<" && (*cond)[1].text != "<=")) {
        why = "its condition is not 'V < E' or 'V <= E'";
        return std::nullopt;
    }
    loop.variable = (*cond)[0].text;
    loop.compare = (*cond)[1].text;
    if (!plain_expression(*cond, 2, cond->size(), why)) return std::nullopt;
    loop.bound = joined(*cond, 2, cond->size());
    const std::vector<CodeToken>& s = *inc;
    const std::string& v = loop.variable;
    if (s.size() == 2 && ((s[0].text == v && s[1].text == "++") || (s[0].text == "++" && s[1].text == v))) {
        loop.stride = "1";
    } else if (s.size() >= 3 && s[0].text == v && s[1].text == "+=") {
        if (!plain_expression(s, 2, s.size(), why)) return std::nullopt;
        loop.stride = joined(s, 2, s.size());
    } else if (s.size() >= 5 && s[0].text == v && s[1].text == "=" && s[2].text == v && s[3].text == "+") {
        if (!plain_expression(s, 4, s.size(), why)) return std::nullopt;
        loop.stride = joined(s, 4, s.size());
    } else {
        why = "its step is not '" + v + "++', '++" + v + "' or '" + v + " += C'";
        return std::nullopt;
    }
    // Joined again, a stray '#' in the header (`k <#16`) starts the text: a directive to the
    // tokenizer, no expression.
    const auto bound = code_tokens(loop.bound);
    const auto stride = code_tokens(loop.stride);
    if (!bound || !stride) {
        why = "its bound or step is not a plain expression";
        return std::nullopt;
    }
    if (read_names(*bound).count(v) || read_names(*stride).count(v)) {
        why = "its bound or step reads " + v + " itself";
        return std::nullopt;
    }
    return loop;
}

std::string unroll_blocker(std::string_view body, const CountedLoop& loop) {
    const auto tokens = code_tokens(body);
    if (!tokens) return "its body holds a preprocessor line";
    for (const CodeToken& t : *tokens)
        if (t.text == "break" || t.text == "continue" || t.text == "goto")
            return "its body can leave or skip an iteration ('" + t.text + "')";
    const auto bound = code_tokens(loop.bound);
    const auto stride = code_tokens(loop.stride);
    if (!bound || !stride) return "its bound or step is not a plain expression";
    std::set<std::string> invariant = read_names(*bound);
    for (const std::string& name : read_names(*stride)) invariant.insert(name);
    invariant.insert(loop.variable);
    for (const std::string& name : written_names(*tokens))
        if (invariant.count(name)) return "its body writes " + name + ", which the loop's header reads";
    return "";
}

std::string unrolled_condition(const CountedLoop& loop, int factor) {
    const int more = factor - 1;
    std::string ahead;
    if (is_number(loop.stride) && loop.stride.size() < 9)
        ahead = std::to_string(more * std::stoi(loop.stride));
    else
        ahead = std::to_string(more) + " * (" + loop.stride + ")";
    return loop.variable + " + " + ahead + " " + loop.compare + " (" + loop.bound + ")";
}

}  // namespace gi
