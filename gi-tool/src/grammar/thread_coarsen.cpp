#include "grammar/thread_coarsen.hpp"

#include <set>
#include <vector>

#include "grammar/loop_shape.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using CoarsenTokens = std::vector<CodeToken>;

bool coarsen_tokens_are(const CoarsenTokens& tokens, std::size_t from, const std::vector<std::string>& texts) {
    if (from + texts.size() > tokens.size()) return false;
    for (std::size_t k = 0; k < texts.size(); ++k)
        if (tokens[from + k].text != texts[k]) return false;
    return true;
}

// blockIdx.x * blockDim.x + threadIdx.x, either product order, either sum order.
bool global_index(const CoarsenTokens& t, std::size_t from) {
    const std::vector<std::string> block = {"blockIdx", ".", "x"}, dim = {"blockDim", ".", "x"},
                                   thread = {"threadIdx", ".", "x"};
    auto cat = [](std::vector<std::vector<std::string>> parts) {
        std::vector<std::string> out;
        for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
        return out;
    };
    const std::vector<std::vector<std::string>> spellings = {
        cat({block, {"*"}, dim, {"+"}, thread}), cat({dim, {"*"}, block, {"+"}, thread}),
        cat({thread, {"+"}, block, {"*"}, dim}), cat({thread, {"+"}, dim, {"*"}, block})};
    for (const auto& s : spellings)
        if (t.size() == from + s.size() && coarsen_tokens_are(t, from, s)) return true;
    return false;
}

bool coarsen_assignment(const std::string& t) {
    return t == "=" || t == "+=" || t == "-=" || t == "*=" || t == "/=" || t == "%=" || t == "&=" || t == "|=" ||
           t == "^=" || t == "<<=" || t == ">>=";
}

// Names `tokens` declare: NAME after a type word or a '*'/'&' that follows one, before = ; , [ ) :
std::set<std::string> declared_names(const CoarsenTokens& t) {
    static const std::set<std::string> kNotTypes = {"return", "else", "case", "goto", "sizeof", "new", "delete"};
    std::set<std::string> names;
    for (std::size_t k = 1; k + 1 < t.size(); ++k) {
        if (!t[k].identifier) continue;
        const std::string& next = t[k + 1].text;
        if (next != "=" && next != ";" && next != "," && next != "[" && next != ")" && next != ":") continue;
        std::size_t j = k - 1;
        while (j > 0 && (t[j].text == "*" || t[j].text == "&" || t[j].text == "const" || t[j].text == "__restrict__")) --j;
        if (t[j].identifier && !kNotTypes.count(t[j].text) && (j + 1 < k || t[j].text != t[k].text)) names.insert(t[k].text);
    }
    return names;
}

// The variable an assignment, increment or decrement at `k` changes when it is a name or a member
// of one (a.b.c -> a); "" when it writes through memory (p[i], *p, p->x) or is not one.
std::string named_target_before(const CoarsenTokens& t, std::size_t k) {
    std::size_t j = k;
    while (j >= 1 && t[j - 1].identifier) {
        if (j >= 2 && t[j - 2].text == ".") {
            j -= 2;
            continue;
        }
        if (j >= 2 && (t[j - 2].text == "->" || t[j - 2].text == "*" || t[j - 2].text == "]" || t[j - 2].text == ")"))
            return "";
        return t[j - 1].text;
    }
    return "";
}

}  // namespace

std::optional<CoarsenPlan> coarsen_plan(std::string_view body, std::string& why) {
    std::string masked;
    try {
        masked = mask_comments_and_strings(make_source_file("coarsen", std::string(body)));
    } catch (const Error&) {
        why = "the kernel holds an unterminated comment or literal";
        return std::nullopt;
    }
    int depth = 0;
    std::size_t semicolon = std::string::npos;
    for (std::size_t k = 0; k < masked.size() && semicolon == std::string::npos; ++k) {
        if (masked[k] == '(' || masked[k] == '{' || masked[k] == '[') ++depth;
        if (masked[k] == ')' || masked[k] == '}' || masked[k] == ']') --depth;
        if (masked[k] == ';' && depth == 0) semicolon = k;
    }
    const auto declaration = semicolon == std::string::npos ? std::nullopt : code_tokens(body.substr(0, semicolon));
    const auto rest = semicolon == std::string::npos ? std::nullopt : code_tokens(body.substr(semicolon + 1));
    if (!declaration || !rest) {
        why = "the kernel holds a preprocessor line or no statement";
        return std::nullopt;
    }
    // TYPE... i = blockIdx.x * blockDim.x + threadIdx.x
    const CoarsenTokens& d = *declaration;
    std::size_t eq = 0;
    while (eq < d.size() && d[eq].text != "=") ++eq;
    if (eq < 2 || eq == d.size() || !global_index(d, eq + 1)) {
        why = "its first statement does not declare i = blockIdx.x * blockDim.x + threadIdx.x";
        return std::nullopt;
    }
    for (std::size_t k = 0; k < eq; ++k)
        if (!d[k].identifier || d[k].text == "static" || d[k].text == "__shared__") {
            why = "its first statement does not declare i = blockIdx.x * blockDim.x + threadIdx.x";
            return std::nullopt;
        }
    const std::string index = d[eq - 1].text;
    CoarsenPlan plan;
    for (std::size_t k = 0; k < eq; ++k) plan.declaration += (k ? " " : "") + d[k].text;
    plan.rest = semicolon + 1;

    // The bounds check: if (i < X) S, or if (i >= X) return; (also X > i, X <= i).
    const CoarsenTokens& r = *rest;
    std::size_t close = 0;
    int paren = 0;
    for (std::size_t k = 1; k < r.size(); ++k) {
        if (r[k].text == "(") ++paren;
        if (r[k].text == ")" && --paren == 0) {
            close = k;
            break;
        }
    }
    bool returns = false;
    bool checked = false;
    if (r.size() >= 6 && r[0].text == "if" && r[1].text == "(" && close > 4) {
        const std::string& first = r[2].text;
        const std::string& op = r[3].text;
        const std::string& last_op = r[close - 2].text;
        const std::string& last = r[close - 1].text;
        const bool below = (first == index && op == "<") || (last == index && last_op == ">");
        const bool beyond = (first == index && op == ">=") || (last == index && last_op == "<=");
        const CoarsenTokens bound(r.begin() + (first == index ? 4 : 2),
                                  r.begin() + static_cast<std::ptrdiff_t>(first == index ? close : close - 2));
        const bool plain = !bound.empty() && !calls_impure_function(bound) && !read_names(bound).count(index);
        if (plain && beyond && coarsen_tokens_are(r, close + 1, {"return", ";"})) {
            checked = returns = true;
        } else if (plain && below) {
            int braces = 0;
            bool else_at_top = false;
            for (std::size_t k = close + 1; k < r.size(); ++k) {
                if (r[k].text == "{") ++braces;
                if (r[k].text == "}") --braces;
                if (r[k].text == "else" && braces == 0) else_at_top = true;
            }
            // The then statement ends the body: the first ';' or '}' outside parentheses and
            // braces (a statement's end, a block's) is the last token.
            const bool one_statement = r.size() > close + 1 && [&] {
                int nested = 0;
                for (std::size_t k = close + 1; k < r.size(); ++k) {
                    if (r[k].text == "(" || r[k].text == "{") ++nested;
                    if (r[k].text == ")" || r[k].text == "}") --nested;
                    if (nested == 0 && (r[k].text == ";" || r[k].text == "}")) return k + 1 == r.size();
                }
                return false;
            }();
            checked = !else_at_top && one_statement;
        }
    }
    if (!checked) {
        why = "the statement after the index is not the bounds check 'if (" + index + " < n) ...' or 'if (" + index +
              " >= n) return;' with the rest of the kernel under it";
        return std::nullopt;
    }
    const CoarsenTokens after(r.begin() + static_cast<std::ptrdiff_t>(returns ? close + 3 : close + 1), r.end());
    static const std::set<std::string> kPosition = {"threadIdx", "blockIdx", "gridDim"};
    for (const CodeToken& t : after) {
        if (kPosition.count(t.text)) {
            why = "the kernel reads " + t.text + " after its index: its threads are not one element each";
            return std::nullopt;
        }
        if (t.text == "__shared__" || t.text == "static") {
            why = "the kernel declares a " + t.text + " local";
            return std::nullopt;
        }
        if (t.text == "return" || t.text == "break" || t.text == "continue" || t.text == "goto") {
            why = "the kernel can leave its body early ('" + t.text + "')";
            return std::nullopt;
        }
    }
    // Statements' keywords before '(' are no calls.
    CoarsenTokens calls = after;
    for (CodeToken& t : calls)
        if (t.text == "for" || t.text == "if" || t.text == "while" || t.text == "switch" || t.text == "return") t.identifier = false;
    if (calls_impure_function(calls)) {
        why = "the kernel calls a function (a barrier, an atomic, a helper)";
        return std::nullopt;
    }
    const std::set<std::string> declared = declared_names(after);
    for (std::size_t k = 0; k < after.size(); ++k) {
        const std::string& t = after[k].text;
        std::string target;
        if (coarsen_assignment(t) || ((t == "++" || t == "--") && k > 0 && (after[k - 1].identifier))) {
            target = named_target_before(after, k);
        } else if ((t == "++" || t == "--") && k + 1 < after.size() && after[k + 1].identifier &&
                   !(k > 0 && (after[k - 1].identifier || after[k - 1].text == "]" || after[k - 1].text == ")"))) {
            target = after[k + 1].text;
        }
        if (target == index) {
            why = "the kernel writes its index " + index;
            return std::nullopt;
        }
        if (!target.empty() && !declared.count(target)) {
            why = "the kernel changes " + target + ", which one iteration would hand to the next";
            return std::nullopt;
        }
    }
    return plan;
}

std::string coarsened_body(std::string_view body, const CoarsenPlan& plan, int factor, const std::string& counter) {
    const std::string k = std::to_string(factor);
    return "\nfor (int " + counter + " = 0; " + counter + " < " + k + "; ++" + counter + ") {\n" + plan.declaration +
           " = (blockIdx.x * " + k + " + " + counter + ") * blockDim.x + threadIdx.x;" +
           std::string(body.substr(plan.rest)) + "}\n";
}

std::string coarsened_grid(std::string_view x_expression, int factor) {
    const std::string k = std::to_string(factor);
    return "((" + std::string(x_expression) + ") + " + k + " - 1) / " + k;
}

}  // namespace gi
