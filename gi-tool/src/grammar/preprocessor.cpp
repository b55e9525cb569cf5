#include "grammar/preprocessor.hpp"

#include <cctype>
#include <limits>
#include <set>
#include <vector>

namespace gi {
namespace {

// Macro expansion nests at most this deep; deeper means a cycle or something we should not trust.
constexpr int kMaxExpansionDepth = 32;
constexpr int kMaxNesting = 256;

struct Token {
    enum Kind { Number, Name, Op, End } kind = End;
    std::string text;
    long long value = 0;
};

bool tokenize(const std::string& text, std::vector<Token>& out) {
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) {
            ++i;
        } else if (std::isdigit(c)) {
            std::size_t j = i;
            while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '\'')) ++j;
            std::string digits = text.substr(i, j - i);
            std::string clean;
            for (char d : digits)
                if (d != '\'') clean += d;
            // Integer suffixes (u, l, ll, ul...) do not change the value of small constants.
            while (!clean.empty() && (clean.back() == 'u' || clean.back() == 'U' || clean.back() == 'l' || clean.back() == 'L'))
                clean.pop_back();
            int base = 10;
            std::size_t start = 0;
            if (clean.size() > 2 && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'X')) {
                base = 16;
                start = 2;
            } else if (clean.size() > 2 && clean[0] == '0' && (clean[1] == 'b' || clean[1] == 'B')) {
                base = 2;
                start = 2;
            } else if (clean.size() > 1 && clean[0] == '0') {
                base = 8;
                start = 1;
            }
            unsigned long long value = 0;
            for (std::size_t k = start; k < clean.size(); ++k) {
                const char d = clean[k];
                int digit = -1;
                if (d >= '0' && d <= '9') digit = d - '0';
                else if (d >= 'a' && d <= 'f') digit = d - 'a' + 10;
                else if (d >= 'A' && d <= 'F') digit = d - 'A' + 10;
                if (digit < 0 || digit >= base) return false;  // 1.5, 1e3: not a preprocessor integer
                value = value * static_cast<unsigned>(base) + static_cast<unsigned>(digit);
            }
            out.push_back({Token::Number, digits, static_cast<long long>(value)});
            i = j;
        } else if (std::isalpha(c) || c == '_') {
            std::size_t j = i;
            while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
            out.push_back({Token::Name, text.substr(i, j - i), 0});
            i = j;
        } else {
            static const char* const two[] = {"<<", ">>", "<=", ">=", "==", "!=", "&&", "||"};
            std::string op(1, text[i]);
            for (const char* t : two)
                if (text.compare(i, 2, t) == 0) op = t;
            if (op.size() == 1 && std::string("()!~-+*/%<>&^|?:").find(op[0]) == std::string::npos) return false;
            out.push_back({Token::Op, op, 0});
            i += op.size();
        }
    }
    out.push_back({Token::End, "", 0});
    return true;
}

class Evaluator {
public:
    Evaluator(const MacroTable& macros, std::set<std::string> expanding, int depth)
        : macros_(macros), expanding_(std::move(expanding)), depth_(depth) {}

    std::optional<long long> run(const std::string& expression) {
        if (!tokenize(expression, tokens_)) return std::nullopt;
        if (tokens_.size() == 1) return std::nullopt;  // "#if" with nothing: not valid C
        const long long value = conditional();
        if (failed_ || tokens_[pos_].kind != Token::End) return std::nullopt;
        return value;
    }

private:
    const Token& peek() const { return tokens_[pos_]; }
    bool accept(const char* op) {
        if (peek().kind == Token::Op && peek().text == op) {
            ++pos_;
            return true;
        }
        return false;
    }
    long long fail() {
        failed_ = true;
        return 0;
    }

    long long conditional() {
        if (++nesting_ > kMaxNesting) return fail();
        struct Unnest {
            int& n;
            ~Unnest() { --n; }
        } unnest{nesting_};
        const long long condition = binary(0);
        if (!accept("?")) return condition;
        const long long yes = conditional();
        if (!accept(":")) return fail();
        const long long no = conditional();
        return condition ? yes : no;
    }

    static int precedence(const std::string& op) {
        static const std::pair<const char*, int> table[] = {
            {"||", 1}, {"&&", 2}, {"|", 3}, {"^", 4}, {"&", 5}, {"==", 6}, {"!=", 6}, {"<", 7}, {">", 7},
            {"<=", 7}, {">=", 7}, {"<<", 8}, {">>", 8}, {"+", 9}, {"-", 9}, {"*", 10}, {"/", 10}, {"%", 10}};
        for (const auto& [name, level] : table)
            if (op == name) return level;
        return -1;
    }

    long long binary(int min_level) {
        long long left = unary();
        while (!failed_ && peek().kind == Token::Op) {
            const std::string op = peek().text;
            const int level = precedence(op);
            if (level < 0 || level < min_level) break;
            ++pos_;
            const long long right = binary(level + 1);
            if (failed_) return 0;
            left = apply(op, left, right);
        }
        return left;
    }

    long long apply(const std::string& op, long long a, long long b) {
        // Wrap like unsigned arithmetic instead of overflowing (undefined behaviour in C++).
        const auto ua = static_cast<unsigned long long>(a);
        const auto ub = static_cast<unsigned long long>(b);
        if (op == "||") return (a || b) ? 1 : 0;
        if (op == "&&") return (a && b) ? 1 : 0;
        if (op == "|") return a | b;
        if (op == "^") return a ^ b;
        if (op == "&") return a & b;
        if (op == "==") return a == b;
        if (op == "!=") return a != b;
        if (op == "<") return a < b;
        if (op == ">") return a > b;
        if (op == "<=") return a <= b;
        if (op == ">=") return a >= b;
        if (op == "<<") return (b < 0 || b > 63) ? fail() : static_cast<long long>(ua << b);
        if (op == ">>") return (b < 0 || b > 63) ? fail() : a >> b;
        if (op == "+") return static_cast<long long>(ua + ub);
        if (op == "-") return static_cast<long long>(ua - ub);
        if (op == "*") return static_cast<long long>(ua * ub);
        if (op == "/" || op == "%") {
            if (b == 0 || (a == std::numeric_limits<long long>::min() && b == -1)) return fail();
            return op == "/" ? a / b : a % b;
        }
        return fail();
    }

    long long unary() {
        if (failed_) return 0;
        // Parentheses and unary operators nest by recursion; bound it so no input exhausts the stack.
        if (++nesting_ > kMaxNesting) return fail();
        struct Unnest {
            int& n;
            ~Unnest() { --n; }
        } unnest{nesting_};
        if (accept("!")) return unary() == 0 ? 1 : 0;
        if (accept("~")) return ~unary();
        if (accept("-")) return static_cast<long long>(0ULL - static_cast<unsigned long long>(unary()));
        if (accept("+")) return unary();
        return primary();
    }

    long long primary() {
        const Token token = peek();
        if (token.kind == Token::Number) {
            ++pos_;
            return token.value;
        }
        if (accept("(")) {
            const long long value = conditional();
            if (!accept(")")) return fail();
            return value;
        }
        if (token.kind != Token::Name) return fail();
        ++pos_;
        if (token.text == "defined") {
            const bool parens = accept("(");
            if (peek().kind != Token::Name) return fail();
            const std::string name = peek().text;
            ++pos_;
            if (parens && !accept(")")) return fail();
            return macros_.count(name) ? 1 : 0;
        }
        if (token.text == "true") return 1;
        if (token.text == "false") return 0;
        if (peek().kind == Token::Op && peek().text == "(") return fail();  // function-like macro call
        const auto found = macros_.find(token.text);
        if (found == macros_.end()) return 0;  // C: unknown identifiers are 0
        if (expanding_.count(token.text) || depth_ >= kMaxExpansionDepth) return fail();
        std::set<std::string> inner = expanding_;
        inner.insert(token.text);
        Evaluator nested(macros_, std::move(inner), depth_ + 1);
        const auto value = nested.run(found->second);
        if (!value) return fail();
        return *value;
    }

    const MacroTable& macros_;
    std::set<std::string> expanding_;
    int depth_;
    std::vector<Token> tokens_;
    std::size_t pos_ = 0;
    bool failed_ = false;
    int nesting_ = 0;
};

}  // namespace

std::optional<long long> evaluate_condition(const std::string& expression, const MacroTable& macros) {
    return Evaluator(macros, {}, 0).run(expression);
}

namespace {

// True when `text` is non-empty and every name in it is a macro of `macros` whose replacement is
// such a text too (no cycles, at most kMaxExpansionDepth deep): where #if reads an unknown name as
// 0, a launch dimension must not.
bool names_only_integer_macros(const std::string& text, const MacroTable& macros, std::set<std::string>& expanding) {
    std::vector<Token> tokens;
    if (!tokenize(text, tokens) || tokens.size() == 1) return false;
    if (expanding.size() > static_cast<std::size_t>(kMaxExpansionDepth)) return false;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        if (tokens[i].kind != Token::Name) continue;
        if (tokens[i].text == "defined" || (tokens[i + 1].kind == Token::Op && tokens[i + 1].text == "(")) return false;
        const auto found = macros.find(tokens[i].text);
        if (found == macros.end() || !expanding.insert(found->first).second) return false;
        const bool ok = names_only_integer_macros(found->second, macros, expanding);
        expanding.erase(found->first);
        if (!ok) return false;
    }
    return true;
}

}  // namespace

std::map<std::string, long long> integer_macros(const MacroTable& macros) {
    std::map<std::string, long long> values;
    for (const auto& [name, text] : macros) {
        std::set<std::string> expanding{name};
        if (!names_only_integer_macros(text, macros, expanding)) continue;
        if (const auto value = evaluate_condition(text, macros)) values[name] = *value;
    }
    return values;
}

}  // namespace gi
