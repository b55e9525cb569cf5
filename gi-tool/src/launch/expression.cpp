#include "launch/expression.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>
#include <set>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {

// An exact rational with a positive denominator.
namespace {
struct Rational {
    long long num = 0;
    long long den = 1;
};

long long checked(__int128 value, const std::string& context) {
    if (value > std::numeric_limits<long long>::max() || value < std::numeric_limits<long long>::min())
        throw Error(context + ": the value overflows 64 bits");
    return static_cast<long long>(value);
}

Rational make(__int128 num, __int128 den, const std::string& context) {
    if (den < 0) {
        num = -num;
        den = -den;
    }
    __int128 a = num < 0 ? -num : num, b = den;
    while (b != 0) {
        const __int128 t = a % b;
        a = b;
        b = t;
    }
    if (a > 1) {
        num /= a;
        den /= a;
    }
    return {checked(num, context), checked(den, context)};
}

__int128 floor_of(const Rational& r) {
    __int128 q = r.num / r.den;
    if (r.num % r.den != 0 && r.num < 0) --q;
    return q;
}
}  // namespace

struct Expression::Node {
    enum class Kind { Number, Name, Negate, Binary, Call } kind = Kind::Number;
    long long number = 0;
    std::string name;  // Name: the name; Call: the function
    char op = 0;       // Binary: + - * / %
    std::size_t position = 0;
    std::size_t height = 1;  // levels of the tree from here down
    std::vector<std::shared_ptr<const Node>> children;
};

namespace {

using NodePtr = std::shared_ptr<const Expression::Node>;
using Node = Expression::Node;

const std::map<std::string, std::size_t>& functions() {
    static const std::map<std::string, std::size_t> table{{"ceil", 1},     {"floor", 1},   {"min", 2},
                                                          {"max", 2},      {"div_ceil", 2}, {"round_up", 2}};
    return table;
}

class Parser {
public:
    Parser(const std::string& text, const std::string& what) : text_(text), what_(what) {}

    NodePtr parse() {
        NodePtr node = sum();
        skip_space();
        if (pos_ < text_.size()) fail("unexpected '" + std::string(1, text_[pos_]) + "'");
        return node;
    }

private:
    // One level of nesting (a parenthesis, a sign, a function call) for as long as it lives: the
    // parser recurses once a level, so 20,000 '(' overflowed the stack (issue 39).
    class Nested {
    public:
        explicit Nested(Parser& parser) : parser_(parser) {
            if (++parser_.depth_ > kMaxExpressionDepth)
                parser_.fail("nested more than " + std::to_string(kMaxExpressionDepth) +
                             " levels deep (parentheses, signs and function calls); write it flatter");
        }
        ~Nested() { --parser_.depth_; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;

    private:
        Parser& parser_;
    };

    [[noreturn]] void fail(const std::string& problem) const {
        throw UsageError(what_ + " " + excerpt("'" + text_ + "'", 120) + " at position " + std::to_string(pos_ + 1) +
                         ": " + problem +
                         " (expressions use integers, names, + - * / %, ( ), ceil, floor, min, max, div_ceil, round_up)");
    }
    void skip_space() {
        while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
    }
    bool accept(char c) {
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == c) {
            ++pos_;
            return true;
        }
        return false;
    }
    NodePtr binary(char op, std::size_t at, NodePtr left, NodePtr right) {
        auto node = std::make_shared<Node>();
        node->kind = Node::Kind::Binary;
        node->op = op;
        node->position = at;
        node->children = {std::move(left), std::move(right)};
        return with_height(std::move(node), at);
    }
    // Evaluating (and freeing) the tree recurses once a level too: a chain "1+1+...+1" is as deep
    // as it is long, so it is bounded like nesting.
    NodePtr with_height(std::shared_ptr<Node> node, std::size_t at) {
        for (const NodePtr& child : node->children) node->height = std::max(node->height, child->height + 1);
        if (node->height > kMaxExpressionHeight) {
            pos_ = at;
            fail("more than " + std::to_string(kMaxExpressionHeight) +
                 " operators deep (each of a chain of + - * / % counts); write it shorter");
        }
        return node;
    }
    NodePtr sum() {
        NodePtr left = product();
        for (;;) {
            skip_space();
            const std::size_t at = pos_;
            if (accept('+')) left = binary('+', at, left, product());
            else if (accept('-')) left = binary('-', at, left, product());
            else return left;
        }
    }
    NodePtr product() {
        NodePtr left = unary();
        for (;;) {
            skip_space();
            const std::size_t at = pos_;
            if (accept('*')) left = binary('*', at, left, unary());
            else if (accept('/')) left = binary('/', at, left, unary());
            else if (accept('%')) left = binary('%', at, left, unary());
            else return left;
        }
    }
    NodePtr unary() {
        const Nested level(*this);
        skip_space();
        const std::size_t at = pos_;
        if (accept('+')) return unary();
        if (accept('-')) {
            auto node = std::make_shared<Node>();
            node->kind = Node::Kind::Negate;
            node->position = at;
            node->children = {unary()};
            return with_height(std::move(node), at);
        }
        return primary();
    }
    NodePtr primary() {
        skip_space();
        if (pos_ >= text_.size()) fail("expected a number, a name or '(' but the expression ends");
        const std::size_t at = pos_;
        const char c = text_[pos_];
        if (accept('(')) {
            NodePtr inner = sum();
            if (!accept(')')) fail("expected ')' to close the '(' at position " + std::to_string(at + 1));
            return inner;
        }
        auto node = std::make_shared<Node>();
        node->position = at;
        if (std::isdigit(static_cast<unsigned char>(c))) {
            __int128 value = 0;
            while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
                value = value * 10 + (text_[pos_++] - '0');
                if (value > std::numeric_limits<long long>::max()) fail("the number is too large");
            }
            node->kind = Node::Kind::Number;
            node->number = static_cast<long long>(value);
            return node;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            while (pos_ < text_.size() &&
                   (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_'))
                ++pos_;
            node->name = text_.substr(at, pos_ - at);
            skip_space();
            if (pos_ < text_.size() && text_[pos_] == '(') {
                auto fn = functions().find(node->name);
                if (fn == functions().end()) {
                    pos_ = at;
                    fail("unknown function '" + node->name + "'");
                }
                ++pos_;
                node->kind = Node::Kind::Call;
                for (std::size_t i = 0; i < fn->second; ++i) {
                    if (i > 0 && !accept(',')) fail(node->name + "() takes " + std::to_string(fn->second) + " arguments");
                    node->children.push_back(sum());
                }
                if (!accept(')')) fail("expected ')' to close " + node->name + "(, which takes " +
                                       std::to_string(fn->second) + " argument(s)");
                return with_height(std::move(node), at);
            }
            node->kind = Node::Kind::Name;
            return node;
        }
        fail("expected a number, a name or '(' but found '" + std::string(1, c) + "'");
    }

    const std::string& text_;
    const std::string& what_;
    std::size_t pos_ = 0;
    std::size_t depth_ = 0;
};

class Evaluator {
public:
    Evaluator(const std::string& text, const std::string& what, const NameValues& names)
        : context_(what + " '" + text + "'"), names_(names) {}

    Rational eval(const Node& n) const {
        switch (n.kind) {
            case Node::Kind::Number: return {n.number, 1};
            case Node::Kind::Name: {
                auto it = names_.find(n.name);
                if (it == names_.end()) {
                    std::string known;
                    for (const auto& [name, value] : names_) known += (known.empty() ? "" : ", ") + name;
                    throw Error(context_ + ": unknown name '" + n.name + "' at position " +
                                std::to_string(n.position + 1) + " (known: " + (known.empty() ? "none" : known) + ")");
                }
                return {it->second, 1};
            }
            case Node::Kind::Negate: {
                const Rational r = eval(*n.children[0]);
                return make(-static_cast<__int128>(r.num), r.den, context_);
            }
            case Node::Kind::Binary: return binary(n);
            case Node::Kind::Call: return call(n);
        }
        return {};
    }

private:
    Rational binary(const Node& n) const {
        const Rational a = eval(*n.children[0]);
        const Rational b = eval(*n.children[1]);
        const __int128 an = a.num, ad = a.den, bn = b.num, bd = b.den;
        switch (n.op) {
            case '+': return make(an * bd + bn * ad, ad * bd, context_);
            case '-': return make(an * bd - bn * ad, ad * bd, context_);
            case '*': return make(an * bn, ad * bd, context_);
            case '/':
                if (bn == 0) throw Error(context_ + ": division by zero at position " + std::to_string(n.position + 1));
                return make(an * bd, ad * bn, context_);
            case '%':
                if (ad != 1 || bd != 1)
                    throw Error(context_ + ": '%' at position " + std::to_string(n.position + 1) +
                                " needs integers on both sides");
                if (bn == 0) throw Error(context_ + ": remainder by zero at position " + std::to_string(n.position + 1));
                return {a.num % b.num, 1};
        }
        return {};
    }
    Rational call(const Node& n) const {
        std::vector<Rational> args;
        for (const auto& child : n.children) args.push_back(eval(*child));
        auto less = [](const Rational& x, const Rational& y) {
            return static_cast<__int128>(x.num) * y.den < static_cast<__int128>(y.num) * x.den;
        };
        if (n.name == "floor") return {checked(floor_of(args[0]), context_), 1};
        if (n.name == "ceil") return {checked(-floor_of({-args[0].num, args[0].den}), context_), 1};
        if (n.name == "min") return less(args[1], args[0]) ? args[1] : args[0];
        if (n.name == "max") return less(args[0], args[1]) ? args[1] : args[0];
        if (args[1].num == 0)
            throw Error(context_ + ": " + n.name + "() by zero at position " + std::to_string(n.position + 1));
        const Rational ratio = make(static_cast<__int128>(args[0].num) * args[1].den,
                                    static_cast<__int128>(args[0].den) * args[1].num, context_);
        const __int128 up = -floor_of({-ratio.num, ratio.den});
        if (n.name == "div_ceil") return {checked(up, context_), 1};
        return make(up * args[1].num, args[1].den, context_);  // round_up
    }

    std::string context_;
    const NameValues& names_;
};

void collect_names(const Node& n, std::set<std::string>& out) {
    if (n.kind == Node::Kind::Name) out.insert(n.name);
    for (const auto& child : n.children) collect_names(*child, out);
}

}  // namespace

Expression Expression::parse(const std::string& text, const std::string& what) {
    Expression e;
    e.text_ = text;
    e.what_ = what;
    e.root_ = Parser(e.text_, what).parse();
    return e;
}

long long Expression::evaluate(const NameValues& names) const {
    const Rational r = Evaluator(text_, what_, names).eval(*root_);
    if (r.den != 1)
        throw Error(what_ + " '" + text_ + "' gives " + std::to_string(r.num) + "/" + std::to_string(r.den) +
                    ", not an integer (round it with ceil(), floor() or div_ceil())");
    return r.num;
}

std::vector<std::string> Expression::names() const {
    std::set<std::string> names;
    collect_names(*root_, names);
    return {names.begin(), names.end()};
}

std::vector<Expression> parse_dims(const std::string& text, const std::string& what) {
    std::vector<std::string> parts;
    int depth = 0;
    std::string current;
    for (char c : text) {
        if (c == '(') ++depth;
        if (c == ')') --depth;
        if (c == ',' && depth == 0) {
            parts.push_back(current);
            current.clear();
        } else {
            current += c;
        }
    }
    parts.push_back(current);
    if (parts.size() > 3)
        throw UsageError(what + " '" + text + "' has " + std::to_string(parts.size()) +
                         " parts; give X[,Y[,Z]] (at most three expressions)");
    std::vector<Expression> dims;
    static const char* axes[] = {"x", "y", "z"};
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (std::all_of(parts[i].begin(), parts[i].end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }))
            throw UsageError(what + " '" + text + "': the " + axes[i] + " expression is empty; give X[,Y[,Z]]");
        dims.push_back(Expression::parse(parts[i], what + " (" + axes[i] + ")"));
    }
    return dims;
}

}  // namespace gi
