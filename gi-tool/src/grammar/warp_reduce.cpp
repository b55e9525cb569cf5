#include "grammar/warp_reduce.hpp"

#include <algorithm>
#include <cctype>
#include <set>
#include <vector>

#include "grammar/loop_shape.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using Tokens = std::vector<CodeToken>;

// Reads a token sequence front to back; each eat() moves on only when it matches.
class ShflCursor {
public:
    explicit ShflCursor(const Tokens& tokens, std::size_t from = 0, std::size_t to = std::string::npos)
        : t_(tokens), k_(from), end_(std::min(to, tokens.size())) {}
    bool done() const { return k_ >= end_; }
    const std::string& peek(std::size_t ahead = 0) const {
        static const std::string none;
        return k_ + ahead < end_ ? t_[k_ + ahead].text : none;
    }
    bool identifier() const { return !done() && t_[k_].identifier; }
    bool eat(std::string_view text) {
        if (done() || t_[k_].text != text) return false;
        ++k_;
        return true;
    }
    bool eat_all(const std::vector<std::string>& texts) {
        const std::size_t at = k_;
        for (const std::string& text : texts)
            if (!eat(text)) {
                k_ = at;
                return false;
            }
        return true;
    }
    std::string take() { return done() ? "" : t_[k_++].text; }
    std::size_t at() const { return k_; }
    void seek(std::size_t k) { k_ = k; }

private:
    const Tokens& t_;
    std::size_t k_;
    std::size_t end_;
};

bool zero_literal(const std::string& t) { return t == "0" || t == "0u" || t == "0U"; }
bool one_literal(const std::string& t) { return t == "1" || t == "1u" || t == "1U"; }
bool two_literal(const std::string& t) { return t == "2" || t == "2u" || t == "2U"; }

const std::set<std::string>& combine_functions() {
    static const std::set<std::string> names = {"fmaxf", "fminf", "max", "min", "fmax", "fmin"};
    return names;
}

// The body's shape: its array, its name for threadIdx.x (as tokens), how it combines, where its barrier is.
struct BodyShape {
    std::string array;
    std::vector<std::string> thread;
    std::string combine;
    bool barrier_first = false;
};

// A[T] (1) or A[T + V] / A[V + T] (2) at the cursor, else 0 (the cursor unmoved).
int element_at(ShflCursor& c, const BodyShape& shape, const std::string& variable) {
    const std::size_t at = c.at();
    if (!c.eat(shape.array) || !c.eat("[")) {
        c.seek(at);
        return 0;
    }
    if (c.eat_all(shape.thread)) {
        if (c.eat("]")) return 1;
        if (c.eat("+") && c.eat(variable) && c.eat("]")) return 2;
    } else if (c.eat(variable) && c.eat("+") && c.eat_all(shape.thread) && c.eat("]")) {
        return 2;
    }
    c.seek(at);
    return 0;
}

std::optional<BodyShape> body_shape(const Tokens& tokens, const std::string& variable, std::string& why) {
    std::size_t from = 0, to = tokens.size();
    if (to >= 2 && tokens.front().text == "{" && tokens.back().text == "}") {
        ++from;
        --to;
    }
    ShflCursor c(tokens, from, to);
    BodyShape shape;
    const std::vector<std::string> barrier = {"__syncthreads", "(", ")", ";"};
    shape.barrier_first = c.eat_all(barrier);
    const std::string shape_why = "its body is not 'if (tid < " + variable + ") a[tid] += a[tid + " + variable +
                                  "];' and __syncthreads()";
    // if (T < V)
    if (!c.eat("if") || !c.eat("(")) {
        why = shape_why;
        return std::nullopt;
    }
    if (c.eat_all({"threadIdx", ".", "x"})) shape.thread = {"threadIdx", ".", "x"};
    else if (c.identifier() && c.peek() != variable) shape.thread = {c.take()};
    if (shape.thread.empty() || !c.eat("<") || !c.eat(variable) || !c.eat(")")) {
        why = shape_why;
        return std::nullopt;
    }
    const bool braced = c.eat("{");
    // A[T] ...
    if (!c.identifier() || c.peek() == variable) {
        why = shape_why;
        return std::nullopt;
    }
    shape.array = c.peek();
    if (element_at(c, shape, variable) != 1) {
        why = shape_why;
        return std::nullopt;
    }
    bool matched = false;
    if (c.peek() == "+=" || c.peek() == "*=") {
        shape.combine = c.take().substr(0, 1);
        matched = element_at(c, shape, variable) == 2;
    } else if (c.eat("=")) {
        if (c.identifier() && combine_functions().count(c.peek()) && c.peek(1) == "(") {
            shape.combine = c.take();
            c.eat("(");
            const int first = element_at(c, shape, variable);
            const bool comma = c.eat(",");
            const int second = element_at(c, shape, variable);
            matched = comma && first + second == 3 && first != second && c.eat(")");
        } else {
            const int first = element_at(c, shape, variable);
            if (c.peek() == "+" || c.peek() == "*") shape.combine = c.take();
            const int second = element_at(c, shape, variable);
            matched = !shape.combine.empty() && first + second == 3 && first != second;
        }
    }
    if (!matched || !c.eat(";") || (braced && !c.eat("}"))) {
        why = shape_why;
        return std::nullopt;
    }
    if (!shape.barrier_first && !c.eat_all(barrier)) {
        why = c.done() ? "its body has no __syncthreads() after the step" : shape_why;
        return std::nullopt;
    }
    if (!c.done()) {
        why = shape_why;
        return std::nullopt;
    }
    return shape;
}

std::string joined_tokens(const Tokens& tokens, std::size_t from, std::size_t to) {
    std::string out;
    for (std::size_t k = from; k < to; ++k) {
        const std::string& t = tokens[k].text;
        const bool tight = k == from || t == "." || tokens[k - 1].text == "." || t == ")" || tokens[k - 1].text == "(";
        out += (tight ? "" : " ") + t;
    }
    return out;
}

// Where the statement holding tokens[k] starts (after the previous ';', '{' or '}').
std::size_t statement_start(const Tokens& tokens, std::size_t k) {
    while (k > 0 && tokens[k - 1].text != ";" && tokens[k - 1].text != "{" && tokens[k - 1].text != "}") --k;
    return k;
}

bool member_before(const Tokens& tokens, std::size_t k) {
    return k > 0 && (tokens[k - 1].text == "." || tokens[k - 1].text == "->" || tokens[k - 1].text == "::");
}

// Why the function's use of `array` does not let the warp leave elements 1.. as they are ("" when it does).
std::string array_blocker(const Tokens& before, const Tokens& loop, const Tokens& after, const std::string& array) {
    int declarations = 0;
    bool is_extern = false;
    for (std::size_t k = 0; k < before.size(); ++k) {
        if (before[k].text != array || member_before(before, k)) continue;
        if (k + 1 >= before.size() || before[k + 1].text != "[" || (k > 0 && before[k - 1].text == "&"))
            return "the function uses " + array + " other than as " + array + "[...] (an alias or its address)";
        const std::size_t start = statement_start(before, k);
        std::vector<std::string> words;
        bool shared = false;
        for (std::size_t j = start; j < k; ++j) {
            const std::string& w = before[j].text;
            if (w == "__shared__") shared = true;
            else if (w == "extern") is_extern = true;
            else if (w != "volatile" && w != "static") words.push_back(w);
        }
        if (!shared) continue;  // a use, A[i] = ...
        ++declarations;
        static const std::set<std::vector<std::string>> kTypes = {
            {"float"}, {"double"}, {"int"}, {"unsigned"}, {"unsigned", "int"}, {"long", "long"},
            {"unsigned", "long", "long"}, {"long", "long", "int"}, {"unsigned", "long", "long", "int"}};
        if (!kTypes.count(words)) {
            std::string type;
            for (const std::string& w : words) type += (type.empty() ? "" : " ") + w;
            return "its array " + array + " is declared '" + type + "', not an array of a type __shfl_down_sync takes";
        }
    }
    if (declarations != 1)
        return declarations == 0 ? "its array " + array + " is not a __shared__ array the function declares before the loop"
                                 : "the function declares " + array + " more than once";
    if (is_extern) {
        int externs = 0;
        for (const Tokens* part : {&before, &loop, &after})
            for (std::size_t k = 0; k + 1 < part->size(); ++k)
                if ((*part)[k].text == "extern" && (*part)[k + 1].text == "__shared__") ++externs;
        if (externs != 1) return "another extern __shared__ array shares " + array + "'s memory";
    }
    for (std::size_t k = 0; k < after.size(); ++k) {
        if (after[k].text != array || member_before(after, k)) continue;
        const bool first = k + 3 < after.size() && after[k + 1].text == "[" && zero_literal(after[k + 2].text) &&
                           after[k + 3].text == "]" && !(k > 0 && after[k - 1].text == "&");
        if (!first) return "the code after the loop uses " + array + " other than as " + array + "[0]";
    }
    return "";
}

// `text` with its preprocessor lines blanked: a pragma or an #if around the code before or after
// the loop changes nothing the premise reads (an #if's branches are both read, which is stricter).
std::string without_directives(std::string_view text) {
    std::string out(text);
    bool directive = false;
    for (std::size_t line = 0; line < out.size();) {
        std::size_t end = out.find('\n', line);
        if (end == std::string::npos) end = out.size();
        const std::size_t first = out.find_first_not_of(" \t", line);
        if (directive || (first < end && out[first] == '#')) {
            directive = end > line && out[end - 1] == '\\';  // continued on the next line
            std::fill(out.begin() + static_cast<std::ptrdiff_t>(line), out.begin() + static_cast<std::ptrdiff_t>(end), ' ');
        }
        line = end + 1;
    }
    return out;
}

}  // namespace

std::optional<TreeReduction> tree_reduction(std::string_view before, std::string_view loop, std::string_view after,
                                            std::string& why) {
    TreeReduction r;
    // Preprocessor lines first (an unroll pragma): they go before each copy of the for.
    std::size_t at = 0;
    for (;;) {
        const std::size_t first = loop.find_first_not_of(" \t\r\n", at);
        if (first == std::string_view::npos || loop[first] != '#') break;
        const std::size_t line_end = loop.find('\n', first);
        if (line_end == std::string_view::npos || loop[line_end - 1] == '\\') {
            why = "a preprocessor line before the loop runs into it";
            return std::nullopt;
        }
        r.prefix += std::string(loop.substr(first, line_end + 1 - first));
        at = line_end + 1;
    }
    at = loop.find_first_not_of(" \t\r\n", at);
    if (at == std::string_view::npos) {
        why = "the loop is gone";
        return std::nullopt;
    }
    r.loop = std::string(loop.substr(at));
    std::string masked;
    try {
        masked = mask_comments_and_strings(make_source_file("shfl", r.loop));
    } catch (const Error&) {
        why = "the loop holds an unterminated comment or literal";
        return std::nullopt;
    }
    // for ( init ; cond ; step ) body
    std::size_t open = masked.compare(0, 3, "for") == 0 ? masked.find_first_not_of(" \t\r\n", 3) : std::string::npos;
    if (open == std::string::npos || masked[open] != '(') {
        why = "the statement is no longer a for loop";
        return std::nullopt;
    }
    std::vector<std::size_t> semicolons;
    std::size_t close = std::string::npos;
    int depth = 0;
    for (std::size_t k = open; k < masked.size() && close == std::string::npos; ++k) {
        if (masked[k] == '(') ++depth;
        if (masked[k] == ')' && --depth == 0) close = k;
        if (masked[k] == ';' && depth == 1) semicolons.push_back(k);
    }
    if (close == std::string::npos || semicolons.size() != 2) {
        why = "the loop's header is not 'init; condition; step'";
        return std::nullopt;
    }
    r.cond_begin = semicolons[0] + 1;
    r.cond_end = semicolons[1];
    const auto init = code_tokens(std::string_view(r.loop).substr(open + 1, semicolons[0] - open - 1));
    const auto cond = code_tokens(std::string_view(r.loop).substr(r.cond_begin, r.cond_end - r.cond_begin));
    const auto step = code_tokens(std::string_view(r.loop).substr(semicolons[1] + 1, close - semicolons[1] - 1));
    const auto body = code_tokens(std::string_view(r.loop).substr(close + 1));
    const auto before_tokens = code_tokens(without_directives(before));
    const auto after_tokens = code_tokens(without_directives(after));
    if (!init || !cond || !step || !body || !before_tokens || !after_tokens) {
        why = "the function holds a preprocessor line or an unterminated comment or literal";
        return std::nullopt;
    }

    // init: [TYPE...] V = E
    const auto assign = std::find_if(init->begin(), init->end(), [](const CodeToken& t) { return t.text == "="; });
    const std::size_t eq = static_cast<std::size_t>(assign - init->begin());
    const bool declared = eq >= 2;
    if (assign == init->end() || eq == 0 || !(*init)[eq - 1].identifier || eq + 1 >= init->size() ||
        !std::all_of(init->begin(), assign, [](const CodeToken& t) { return t.identifier; })) {
        why = "its header does not start 'V = E'";
        return std::nullopt;
    }
    r.variable = (*init)[eq - 1].text;
    const std::string& v = r.variable;
    r.start = joined_tokens(*init, eq + 1, init->size());

    // cond: V > 0, V >= 1, 0 < V, V != 0, V
    const Tokens& k = *cond;
    const bool counts_down_to_zero = (k.size() == 1 && k[0].text == v) ||
                                     (k.size() == 3 && k[0].text == v &&
                                      (((k[1].text == ">" || k[1].text == "!=") && zero_literal(k[2].text)) ||
                                       (k[1].text == ">=" && one_literal(k[2].text)))) ||
                                     (k.size() == 3 && zero_literal(k[0].text) && k[1].text == "<" && k[2].text == v);
    if (!counts_down_to_zero) {
        why = "its condition is not '" + v + " > 0'";
        return std::nullopt;
    }
    // step: V >>= 1, V /= 2, V = V >> 1, V = V / 2
    const Tokens& s = *step;
    const bool halves = (s.size() == 3 && s[0].text == v &&
                         ((s[1].text == ">>=" && one_literal(s[2].text)) || (s[1].text == "/=" && two_literal(s[2].text)))) ||
                        (s.size() == 5 && s[0].text == v && s[1].text == "=" && s[2].text == v &&
                         ((s[3].text == ">>" && one_literal(s[4].text)) || (s[3].text == "/" && two_literal(s[4].text))));
    if (!halves) {
        why = "its step is not '" + v + " >>= 1'";
        return std::nullopt;
    }

    const std::optional<BodyShape> shape = body_shape(*body, v, why);
    if (!shape) return std::nullopt;
    r.array = shape->array;
    r.combine = shape->combine;
    r.barrier_first = shape->barrier_first;
    for (const std::string& t : shape->thread) r.thread += t;

    // Everything the function writes besides the loop's own variable, for the block-uniform start
    // and the thread index: the loop's init left out (it writes V).
    Tokens rest = *before_tokens;
    const std::vector<std::string>& thread = shape->thread;
    if (thread.size() == 1) {
        // T: one declaration `TYPE T = threadIdx.x;` before the loop, never written again.
        int found = 0;
        std::size_t declaration = 0;
        for (std::size_t j = 1; j + 5 < rest.size(); ++j)
            if (rest[j].text == thread[0] && rest[j - 1].identifier && rest[j + 1].text == "=" &&
                rest[j + 2].text == "threadIdx" && rest[j + 3].text == "." && rest[j + 4].text == "x" &&
                rest[j + 5].text == ";") {
                ++found;
                declaration = j;
            }
        if (found != 1) {
            why = "its thread index " + thread[0] + " is not declared once as threadIdx.x before the loop";
            return std::nullopt;
        }
        rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(declaration),
                   rest.begin() + static_cast<std::ptrdiff_t>(declaration) + 5);
    }
    rest.insert(rest.end(), body->begin(), body->end());
    rest.insert(rest.end(), after_tokens->begin(), after_tokens->end());
    const std::set<std::string> written = written_names(rest);
    if (thread.size() == 1 && written.count(thread[0])) {
        why = "the function writes its thread index " + thread[0];
        return std::nullopt;
    }

    // E: block-uniform, so the guard's test takes every thread of a block the same way: numbers,
    // blockDim/gridDim/blockIdx members, names the function never writes, arithmetic.
    {
        bool uniform = true;
        std::size_t j = eq + 1;
        for (; j < init->size(); ++j) {
            const CodeToken& t = (*init)[j];
            const std::string& prev = (*init)[j - 1].text;
            if (t.identifier) {
                if (prev == ".") {
                    uniform = t.text == "x" || t.text == "y" || t.text == "z";
                } else if (t.text == "blockDim" || t.text == "gridDim" || t.text == "blockIdx") {
                    uniform = j + 1 < init->size() && (*init)[j + 1].text == ".";
                } else {
                    uniform = t.text != v && t.text != "threadIdx" && !written.count(t.text) &&
                              !(j + 1 < init->size() && (*init)[j + 1].text == "(");
                }
            } else if (std::isdigit(static_cast<unsigned char>(t.text[0]))) {
                uniform = true;
            } else if (t.text == ".") {
                uniform = prev == "blockDim" || prev == "gridDim" || prev == "blockIdx";
            } else if (t.text == "*") {
                // A product, not a dereference: after a value.
                uniform = (*init)[j - 1].identifier || prev == ")" || std::isdigit(static_cast<unsigned char>(prev[0]));
            } else {
                static const std::set<std::string> kOperators = {"+", "-", "/", "%", ">>", "<<", "(", ")"};
                uniform = kOperators.count(t.text) > 0;
            }
            if (!uniform) break;
        }
        if (!uniform) {
            why = "its start " + r.start + " may differ between the threads of a block";
            return std::nullopt;
        }
    }
    if (init->size() == eq + 2 && std::isdigit(static_cast<unsigned char>((*init)[eq + 1].text[0]))) {
        unsigned long long value = 0;
        try {
            value = std::stoull((*init)[eq + 1].text, nullptr, 0);
        } catch (const std::exception&) {
            value = 0;
        }
        if (value < 32 || (value & (value - 1)) != 0) {
            why = "it starts at " + r.start + ", not a power of two of at least 32";
            return std::nullopt;
        }
    }
    if (!declared && read_names(*after_tokens).count(v)) {
        why = "the code after the loop reads " + v + ", which the warp leaves at 32";
        return std::nullopt;
    }
    Tokens loop_tokens = *init;
    loop_tokens.insert(loop_tokens.end(), body->begin(), body->end());
    why = array_blocker(*before_tokens, loop_tokens, *after_tokens, r.array);
    if (!why.empty()) return std::nullopt;
    return r;
}

std::string warp_reduce_text(const TreeReduction& r, const std::string& value_name) {
    const std::string start = "(" + r.start + ")";
    const std::string& t = r.thread;
    const std::string& x = value_name;
    auto combined = [&](const std::string& other) {
        if (r.combine == "+" || r.combine == "*") return x + " " + r.combine + "= " + other + ";\n";
        return x + " = " + r.combine + "(" + x + ", " + other + ");\n";
    };
    std::string warp = r.barrier_first ? "__syncthreads();\n" : "";
    warp += "if (" + t + " < 32) {\n";
    warp += "auto " + x + " = " + r.array + "[" + t + "];\n";
    warp += combined(r.array + "[" + t + " + 32]");
    for (const char* offset : {"16", "8", "4", "2", "1"})
        warp += combined("__shfl_down_sync(0xffffffffu, " + x + ", " + offset + ")");
    warp += "if (" + t + " == 0) " + r.array + "[0] = " + x + ";\n}\n";
    if (!r.barrier_first) warp += "__syncthreads();\n";
    const std::string shared_steps =
        r.loop.substr(0, r.cond_begin) + " " + r.variable + " > 32" + r.loop.substr(r.cond_end);
    return "if (" + start + " >= 32 && (" + start + " & (" + start + " - 1)) == 0 && blockDim.x % 32 == 0) {\n" +
           r.prefix + shared_steps + "\n" + warp + "} else {\n" + r.prefix + r.loop + "\n}";
}

}  // namespace gi
