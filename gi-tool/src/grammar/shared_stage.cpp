#include "grammar/shared_stage.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "grammar/loop_shape.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using StageTokens = std::vector<CodeToken>;

bool stage_assignment(const std::string& t) {
    return t == "=" || t == "+=" || t == "-=" || t == "*=" || t == "/=" || t == "%=" || t == "&=" || t == "|=" ||
           t == "^=" || t == "<<=" || t == ">>=";
}

// The text with its preprocessor lines blanked (an #if around the code reads as nothing here).
std::string without_directives(std::string_view text) {
    std::string out(text);
    std::size_t line = 0;
    while (line < out.size()) {
        std::size_t end = out.find('\n', line);
        if (end == std::string::npos) end = out.size();
        const std::size_t first = out.find_first_not_of(" \t", line);
        if (first < end && out[first] == '#') std::fill(out.begin() + static_cast<std::ptrdiff_t>(line), out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
        line = end + 1;
    }
    return out;
}

// blockIdx.x * blockDim.x + threadIdx.x in [from, to), either product order, either sum order.
bool stage_global_index(const StageTokens& t, std::size_t from, std::size_t to) {
    auto text = [&] {
        std::string s;
        for (std::size_t k = from; k < to; ++k) s += t[k].text + " ";
        return s;
    }();
    static const std::vector<std::string> kSpellings = {
        "blockIdx . x * blockDim . x + threadIdx . x ", "blockDim . x * blockIdx . x + threadIdx . x ",
        "threadIdx . x + blockIdx . x * blockDim . x ", "threadIdx . x + blockDim . x * blockIdx . x "};
    return std::find(kSpellings.begin(), kSpellings.end(), text) != kSpellings.end();
}

bool stage_is_number(const std::string& t) { return !t.empty() && std::isdigit(static_cast<unsigned char>(t[0])); }

// Whether `tokens` are a compile-time constant expression: numbers, the constant names, arithmetic
// and parentheses.
bool constant_expression(const StageTokens& tokens, const std::set<std::string>& constants) {
    static const std::set<std::string> kOperators = {"+", "-", "*", "/", "%", "(", ")"};
    if (tokens.empty()) return false;
    for (const CodeToken& t : tokens) {
        if (t.identifier ? !constants.count(t.text) : !(stage_is_number(t.text) || kOperators.count(t.text))) return false;
    }
    return true;
}

std::string stage_joined(const StageTokens& tokens, std::size_t from, std::size_t to) {
    std::string s;
    for (std::size_t k = from; k < to; ++k) {
        if (!s.empty() && (tokens[k].identifier || stage_is_number(tokens[k].text)) &&
            (std::isalnum(static_cast<unsigned char>(s.back())) || s.back() == '_'))
            s += " ";
        s += tokens[k].text;
    }
    return s;
}

std::size_t partner(const StageTokens& t, std::size_t open) {
    const std::string& o = t[open].text;
    const std::string c = o == "(" ? ")" : o == "[" ? "]" : "}";
    int depth = 0;
    for (std::size_t k = open; k < t.size(); ++k) {
        if (t[k].text == o) ++depth;
        if (t[k].text == c && --depth == 0) return k;
    }
    return t.size();
}

// A write through memory (p[k] = ..., *p = ..., s.x = ..., ++p[k]): what could change the array
// through another pointer before the loop has read it.
bool writes_memory(const StageTokens& t) {
    for (std::size_t k = 0; k < t.size(); ++k) {
        const std::string& s = t[k].text;
        const bool assigns = stage_assignment(s);
        const bool steps = s == "++" || s == "--";
        if (!assigns && !steps) continue;
        if (assigns || (k > 0 && (t[k - 1].identifier || t[k - 1].text == "]" || t[k - 1].text == ")"))) {
            // The target before the operator: a plain name (a declaration's too) writes no memory.
            if (k == 0 || !t[k - 1].identifier) return true;
            if (k >= 2 && (t[k - 2].text == "." || t[k - 2].text == "->" ||
                           (t[k - 2].text == "*" && (k < 3 || !t[k - 3].identifier)))) return true;
        } else if (k + 1 < t.size() && !t[k + 1].identifier) {
            return true;  // ++*p, ++(p[k])
        } else if (k + 2 < t.size() && (t[k + 2].text == "[" || t[k + 2].text == "." || t[k + 2].text == "->")) {
            return true;  // ++p[k], ++s.x
        }
    }
    return false;
}

// Calls other than the pure math ones and the barrier (which the original runs as it did).
bool calls_other(StageTokens tokens) {
    for (CodeToken& t : tokens)
        if (t.text == "for" || t.text == "if" || t.text == "while" || t.text == "switch" || t.text == "return" ||
            t.text == "__syncthreads" || t.text == "sizeof")
            t.identifier = false;
    return calls_impure_function(tokens);
}

// Whether the end of `before` stands inside a loop: an open brace (or a braceless body) whose
// statement is a for, while or do.
bool inside_loop(const StageTokens& t) {
    std::vector<bool> loops;
    auto head_is_loop = [&](std::size_t k) {
        if (k == 0) return false;
        if (t[k - 1].text == "do") return true;
        if (t[k - 1].text != ")") return false;
        int depth = 0;
        for (std::size_t j = k; j-- > 0;) {
            if (t[j].text == ")") ++depth;
            if (t[j].text == "(" && --depth == 0) return j > 0 && (t[j - 1].text == "for" || t[j - 1].text == "while");
        }
        return false;
    };
    for (std::size_t k = 0; k < t.size(); ++k) {
        if (t[k].text == "{") loops.push_back(head_is_loop(k));
        if (t[k].text == "}" && !loops.empty()) loops.pop_back();
    }
    if (std::find(loops.begin(), loops.end(), true) != loops.end()) return true;
    return head_is_loop(t.size());
}

// The top-level && terms of a condition.
std::vector<StageTokens> conjuncts(const StageTokens& c) {
    std::vector<StageTokens> terms(1);
    int depth = 0;
    for (const CodeToken& t : c) {
        if (t.text == "(") ++depth;
        if (t.text == ")") --depth;
        if (t.text == "&&" && depth == 0) {
            terms.emplace_back();
            continue;
        }
        terms.back().push_back(t);
    }
    // (a && b) as one term: its parts.
    std::vector<StageTokens> flat;
    for (StageTokens& term : terms) {
        if (term.size() > 2 && term.front().text == "(" && partner(term, 0) + 1 == term.size()) {
            for (StageTokens& inner : conjuncts(StageTokens(term.begin() + 1, term.end() - 1))) flat.push_back(inner);
        } else {
            flat.push_back(term);
        }
    }
    return flat;
}

bool same_tokens(const StageTokens& a, std::size_t from, std::size_t to, const StageTokens& b) {
    if (to - from != b.size()) return false;
    for (std::size_t k = 0; k < b.size(); ++k)
        if (a[from + k].text != b[k].text) return false;
    return true;
}

// Whether `term` is X >= 0 (0 <= X, X > -1) or X < n (n > X); sets `bound` for the latter.
bool lower_test(const StageTokens& term, const StageTokens& x) {
    const std::size_t n = term.size();
    if (n == x.size() + 2 && same_tokens(term, 0, x.size(), x) && term[x.size()].text == ">=" && term[n - 1].text == "0") return true;
    if (n == x.size() + 2 && same_tokens(term, 2, n, x) && term[1].text == "<=" && term[0].text == "0") return true;
    return false;
}
bool upper_test(const StageTokens& term, const StageTokens& x, StageTokens& bound) {
    const std::size_t n = term.size();
    if (n > x.size() + 1 && same_tokens(term, 0, x.size(), x) && term[x.size()].text == "<") {
        bound.assign(term.begin() + static_cast<std::ptrdiff_t>(x.size() + 1), term.end());
        return true;
    }
    if (n > x.size() + 1 && same_tokens(term, n - x.size(), n, x) && term[n - x.size() - 1].text == ">") {
        bound.assign(term.begin(), term.end() - static_cast<std::ptrdiff_t>(x.size() + 1));
        return true;
    }
    return false;
}

// Whether `tokens` name `name` other than as a member (threadIdx.x is no use of a parameter x).
bool names(const StageTokens& tokens, const std::string& name) {
    for (std::size_t k = 0; k < tokens.size(); ++k)
        if (tokens[k].text == name && !(k > 0 && (tokens[k - 1].text == "." || tokens[k - 1].text == "->"))) return true;
    return false;
}

}  // namespace

std::optional<StagePlan> stage_plan(std::string_view before, std::string_view loop, std::string_view after,
                                    const StageContext& context, std::string& why) {
    const std::string& a = context.array;
    // The loop's leading preprocessor lines (an unroll pragma) stay before each copy of it.
    StagePlan plan;
    std::size_t start = 0;
    while (true) {
        const std::size_t first = loop.find_first_not_of(" \t\r\n", start);
        if (first == std::string_view::npos || loop[first] != '#') break;
        const std::size_t end = loop.find('\n', first);
        start = end == std::string_view::npos ? loop.size() : end + 1;
    }
    plan.pragmas = std::string(loop.substr(0, start));
    plan.loop = std::string(loop.substr(start));
    const auto b = code_tokens(without_directives(before));
    const auto l = code_tokens(plan.loop);
    const auto r = code_tokens(without_directives(after));
    if (!b || !l || !r) {
        why = "the kernel holds an unterminated comment or literal, or a preprocessor line inside the loop";
        return std::nullopt;
    }
    if (context.block.empty()) {
        why = "the kernel's block size is not a compile-time constant (__launch_bounds__ or the launch's <<<grid, BLOCK>>>)";
        return std::nullopt;
    }
    // The index: TYPE i = blockIdx.x * blockDim.x + threadIdx.x; signed, declared once.
    std::string index;
    for (std::size_t k = 0; k + 1 < b->size() && index.empty(); ++k) {
        if (!(*b)[k].identifier || (*b)[k + 1].text != "=") continue;
        std::size_t semi = k + 2;
        while (semi < b->size() && (*b)[semi].text != ";") ++semi;
        if (!stage_global_index(*b, k + 2, semi)) continue;
        std::size_t type = k;
        while (type > 0 && (*b)[type - 1].identifier) --type;
        bool is_signed = type < k;
        for (std::size_t j = type; j < k; ++j)
            if ((*b)[j].text != "int" && (*b)[j].text != "const" && (*b)[j].text != "long") is_signed = false;
        if (!is_signed) {
            why = "the index " + (*b)[k].text + " is not declared as a signed int (i + k below 0 must stay negative)";
            return std::nullopt;
        }
        index = (*b)[k].text;
    }
    if (index.empty()) {
        why = "the kernel declares no index i = blockIdx.x * blockDim.x + threadIdx.x before the loop";
        return std::nullopt;
    }
    if (inside_loop(*b)) {
        why = "the loop stands inside another loop (the index's window could move between its trips)";
        return std::nullopt;
    }
    if (names(*b, a)) {
        why = a + " is used before the loop";
        return std::nullopt;
    }
    if (names(*r, a)) {
        why = a + " is used after the loop";
        return std::nullopt;
    }
    if (writes_memory(*b) || calls_other(*b)) {
        why = "the kernel writes memory or calls a function before the loop (the staged copy is loaded first)";
        return std::nullopt;
    }

    // for (TYPE k = LO; k <= HI; ++k) BODY
    const StageTokens& t = *l;
    if (t.size() < 8 || t[0].text != "for" || t[1].text != "(") {
        why = "the statement is not a for loop";
        return std::nullopt;
    }
    const std::size_t close = partner(t, 1);
    std::size_t semi1 = 2;
    while (semi1 < close && t[semi1].text != ";") ++semi1;
    std::size_t semi2 = semi1 + 1;
    while (semi2 < close && t[semi2].text != ";") ++semi2;
    if (close >= t.size() || semi2 >= close || semi1 < 5 || t[semi1 - 1].text == "=") {
        why = "the loop's header is not for (int k = LO; k <= HI; ++k)";
        return std::nullopt;
    }
    std::size_t eq = 2;
    while (eq < semi1 && t[eq].text != "=") ++eq;
    if (eq >= semi1 || eq < 3 || !t[eq - 1].identifier || !t[eq - 2].identifier) {
        why = "the loop's header is not for (int k = LO; k <= HI; ++k)";
        return std::nullopt;
    }
    if (eq != 4 || t[2].text != "int") {
        why = "the loop's counter is not declared as an int in its header (for (int k = LO; ...))";
        return std::nullopt;
    }
    const std::string counter = t[eq - 1].text;
    std::string loop_why;
    const std::optional<CountedLoop> counted =
        counted_loop(stage_joined(t, semi1 + 1, semi2), stage_joined(t, semi2 + 1, close), loop_why);
    if (!counted || counted->variable != counter || counted->stride != "1") {
        why = "the loop's header is not for (int k = LO; k <= HI; ++k)" + (loop_why.empty() ? "" : ": " + loop_why);
        return std::nullopt;
    }
    const StageTokens low(t.begin() + static_cast<std::ptrdiff_t>(eq + 1), t.begin() + static_cast<std::ptrdiff_t>(semi1));
    const auto bound_tokens = code_tokens(counted->bound);
    if (!constant_expression(low, context.constants) || !bound_tokens ||
        !constant_expression(*bound_tokens, context.constants)) {
        why = "the loop's limits are not compile-time constants (numbers, macros, constexpr or template parameters)";
        return std::nullopt;
    }
    plan.low = stage_joined(low, 0, low.size());
    plan.high = counted->compare == "<=" ? counted->bound : "(" + counted->bound + ") - 1";

    const StageTokens body(t.begin() + static_cast<std::ptrdiff_t>(close + 1), t.end());
    const std::string blocker = unroll_blocker(stage_joined(body, 0, body.size()), *counted);
    if (!blocker.empty()) {
        why = blocker;
        return std::nullopt;
    }
    if (writes_memory(body) || calls_other(body)) {
        why = "the loop writes memory or calls a function";
        return std::nullopt;
    }
    for (const CodeToken& token : body)
        if (token.text == "__syncthreads" || token.text == "return") {
            why = "the loop holds a barrier or a return";
            return std::nullopt;
        }
    // The reads: a[X], X = i + k + C or a local j declared in the body as that.
    StageTokens x;
    std::vector<std::size_t> reads;
    for (std::size_t k = 0; k < body.size(); ++k) {
        if (body[k].text != a) continue;
        if (k > 0 && (body[k - 1].text == "." || body[k - 1].text == "->")) continue;
        if (k + 1 >= body.size() || body[k + 1].text != "[" || (k > 0 && (body[k - 1].text == "&" || body[k - 1].text == "++" || body[k - 1].text == "--"))) {
            why = a + " is used in the loop other than read as " + a + "[X]";
            return std::nullopt;
        }
        const std::size_t end = partner(body, k + 1);
        const StageTokens read(body.begin() + static_cast<std::ptrdiff_t>(k + 2), body.begin() + static_cast<std::ptrdiff_t>(end));
        if (end + 1 < body.size() && (stage_assignment(body[end + 1].text) || body[end + 1].text == "++" || body[end + 1].text == "--")) {
            why = a + " is written in the loop";
            return std::nullopt;
        }
        if (!x.empty() && !same_tokens(read, 0, read.size(), x)) {
            why = a + " is read at two different indexes in the loop";
            return std::nullopt;
        }
        x = read;
        reads.push_back(k);
    }
    if (reads.empty()) {
        why = "the loop does not read " + a;
        return std::nullopt;
    }
    // X itself, or the initialiser of the local X names.
    StageTokens sum = x;
    if (x.size() == 1 && x[0].identifier && x[0].text != index) {
        sum.clear();
        for (std::size_t k = 1; k + 2 < body.size(); ++k)
            if (body[k].text == x[0].text && body[k + 1].text == "=" && body[k - 1].identifier) {
                for (std::size_t j = k + 2; j < body.size() && body[j].text != ";"; ++j) sum.push_back(body[j]);
                break;
            }
        const StageTokens rest_of_body = [&] {
            StageTokens out = body;
            return out;
        }();
        int writes = 0;
        for (std::size_t k = 0; k + 1 < rest_of_body.size(); ++k)
            if (rest_of_body[k].text == x[0].text &&
                (stage_assignment(rest_of_body[k + 1].text) || rest_of_body[k + 1].text == "++" || rest_of_body[k + 1].text == "--" ||
                 (k > 0 && (rest_of_body[k - 1].text == "++" || rest_of_body[k - 1].text == "--" || rest_of_body[k - 1].text == "&"))))
                ++writes;
        if (writes != 1) sum.clear();
    }
    // i + k REST, k + i REST, REST: + or - then constants.
    std::size_t rest = 3;
    const bool shaped = sum.size() >= 3 && sum[1].text == "+" &&
                        ((sum[0].text == index && sum[2].text == counter) || (sum[0].text == counter && sum[2].text == index));
    StageTokens offset(sum.begin() + static_cast<std::ptrdiff_t>(std::min(rest, sum.size())), sum.end());
    if (!shaped || (!offset.empty() && ((offset[0].text != "+" && offset[0].text != "-") ||
                                        !constant_expression(StageTokens(offset.begin() + 1, offset.end()), context.constants)))) {
        why = a + " is not read as " + a + "[" + index + " + " + counter + "] (plus a constant)";
        return std::nullopt;
    }
    plan.offset = "(0";
    for (const CodeToken& token : offset) plan.offset += " " + token.text;
    plan.offset = offset.empty() ? "0" : plan.offset + ")";
    // Each read under an if whose condition holds X >= 0 && X < n.
    for (const std::size_t read : reads) {
        bool guarded = false;
        for (std::size_t k = 0; k + 1 < read && !guarded; ++k) {
            if (body[k].text != "if" || body[k + 1].text != "(") continue;
            const std::size_t cond_end = partner(body, k + 1);
            if (cond_end >= read) continue;
            // The then statement's extent: a block, or up to its ';'.
            std::size_t then_end = cond_end + 1;
            if (then_end < body.size() && body[then_end].text == "{") {
                then_end = partner(body, then_end);
            } else {
                int depth = 0;
                while (then_end < body.size() && !(depth == 0 && body[then_end].text == ";")) {
                    if (body[then_end].text == "(" || body[then_end].text == "{" || body[then_end].text == "[") ++depth;
                    if (body[then_end].text == ")" || body[then_end].text == "}" || body[then_end].text == "]") --depth;
                    ++then_end;
                }
            }
            if (read > then_end) continue;
            // Only a chain of && says that each test holds: `a && b || c` reads past n where c does.
            const StageTokens condition(body.begin() + static_cast<std::ptrdiff_t>(k + 2),
                                        body.begin() + static_cast<std::ptrdiff_t>(cond_end));
            if (std::any_of(condition.begin(), condition.end(),
                            [](const CodeToken& token) { return token.text == "||" || token.text == "?"; }))
                continue;
            bool has_lower = false;
            StageTokens n;
            for (const StageTokens& term : conjuncts(condition)) {
                if (lower_test(term, x)) has_lower = true;
                StageTokens upper;
                if (upper_test(term, x, upper)) n = upper;
            }
            if (!has_lower || n.empty()) continue;
            // n: parameters, constants, numbers and arithmetic (nothing of lower precedence than '<').
            std::set<std::string> names = context.parameters;
            names.insert(context.constants.begin(), context.constants.end());
            if (!constant_expression(n, names)) continue;
            const std::string bound = stage_joined(n, 0, n.size());
            if (!plan.bound.empty() && plan.bound != bound) continue;
            plan.bound = bound;
            guarded = true;
        }
        if (!guarded) {
            why = "the loop's reads of " + a + " are not under if (X >= 0 && X < n) with n a parameter or a constant";
            return std::nullopt;
        }
    }
    // Nothing the load reads is changed anywhere in the kernel (it runs before all of it).
    StageTokens all = *b;
    all.insert(all.end(), t.begin(), t.end());
    all.insert(all.end(), r->begin(), r->end());
    const std::set<std::string> written = written_names(all);
    const auto bound_names = code_tokens(plan.bound);
    std::set<std::string> load_names = {a, index};
    if (bound_names)
        for (const std::string& name : read_names(*bound_names)) load_names.insert(name);
    for (const std::string& name : load_names) {
        if (name == index) {
            int declared = 0;
            for (std::size_t k = 0; k + 1 < all.size(); ++k)
                if (all[k].text == index && (stage_assignment(all[k + 1].text) || all[k + 1].text == "++" || all[k + 1].text == "--" ||
                                             (k > 0 && (all[k - 1].text == "++" || all[k - 1].text == "--" || all[k - 1].text == "&"))))
                    ++declared;
            if (declared != 1) {
                why = "the kernel writes its index " + index + " after declaring it";
                return std::nullopt;
            }
        } else if (written.count(name)) {
            why = "the kernel changes " + name + ", which the load at its top would read unchanged";
            return std::nullopt;
        }
    }
    return plan;
}

std::string staged_prologue(const StagePlan& plan, const StageContext& context, const std::string& name) {
    const std::string width = "(" + plan.high + ") - (" + plan.low + ")";
    return "\n    __shared__ " + context.element + " " + name + "[(" + context.block + ") + " + width + "];\n" +
           "    const bool " + name + "_on = blockDim.x <= (" + context.block + ") && blockDim.y == 1 && blockDim.z == 1;\n" +
           "    const long long " + name + "_base = (long long)blockIdx.x * blockDim.x + (" + plan.low + ") + " + plan.offset + ";\n" +
           "    if (" + name + "_on) {\n" +
           "        for (int " + name + "_t = threadIdx.x; " + name + "_t < (int)blockDim.x + " + width + "; " + name +
           "_t += blockDim.x) {\n" +
           "            const long long " + name + "_g = " + name + "_base + " + name + "_t;\n" +
           "            if (" + name + "_g >= 0 && " + name + "_g < (" + plan.bound + ")) " + name + "[" + name + "_t] = " +
           context.array + "[" + name + "_g];\n" +
           "        }\n" +
           "        __syncthreads();\n" +
           "    }\n";
}

std::string staged_loop(const StagePlan& plan, const StageContext& context, const std::string& name) {
    // a[X] -> name[(X) - name_base], found on the masked text so comments and strings are left.
    std::string masked;
    try {
        masked = mask_comments_and_strings(make_source_file("stage", plan.loop));
    } catch (const Error&) {
        return plan.loop;  // stage_plan tokenised it: not reached
    }
    const std::string& a = context.array;
    std::string staged;
    std::size_t copied = 0;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t at = masked.find(a); at != std::string::npos; at = masked.find(a, at + 1)) {
        if ((at > 0 && (word(masked[at - 1]) || masked[at - 1] == '.' || masked[at - 1] == '>')) ||
            (at + a.size() < masked.size() && word(masked[at + a.size()])))
            continue;
        std::size_t open = masked.find_first_not_of(" \t\r\n", at + a.size());
        if (open == std::string::npos || masked[open] != '[') continue;
        std::size_t close = open;
        for (int depth = 0; close < masked.size(); ++close) {
            if (masked[close] == '[') ++depth;
            if (masked[close] == ']' && --depth == 0) break;
        }
        staged += plan.loop.substr(copied, at - copied) + name + "[(" + plan.loop.substr(open + 1, close - open - 1) + ") - " +
                  name + "_base]";
        copied = close + 1;
        at = close;
    }
    staged += plan.loop.substr(copied);
    return "if (" + name + "_on) {\n" + plan.pragmas + staged + "\n} else {\n" + plan.pragmas + plan.loop + "\n}";
}

}  // namespace gi
