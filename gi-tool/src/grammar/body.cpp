#include "grammar/body.hpp"

#include <algorithm>
#include <optional>

#include "util/error.hpp"

namespace gi::grammar_detail {
namespace {

const std::set<std::string_view> kBuiltinTypes = {
    "void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "auto",
    "wchar_t", "char8_t", "char16_t", "char32_t", "__int128"};

const std::set<std::string_view> kSpecifiers = {
    "const", "volatile", "static", "extern", "register", "mutable", "thread_local", "constexpr",
    "consteval", "constinit", "inline", "__shared__", "__constant__", "__device__", "__managed__",
    "__restrict__", "__restrict", "typename", "struct", "class", "union", "enum", "__forceinline__"};

// Identifiers that begin statements but never name a type.
const std::set<std::string_view> kNotTypes = {
    "return", "goto", "break", "continue", "case", "default", "delete", "new", "throw", "sizeof",
    "alignof", "typeid", "this", "true", "false", "nullptr", "operator", "co_await", "co_yield",
    "co_return", "static_cast", "dynamic_cast", "reinterpret_cast", "const_cast", "if", "else", "for",
    "while", "do", "switch", "asm", "__asm__", "using", "typedef", "namespace", "template",
    "static_assert", "try", "catch", "__syncthreads", "__syncwarp"};

bool is_barrier_call(const Scan& scan, int first, int end) {
    for (int k = first; k < end; ++k) {
        const Token& token = scan.tokens[static_cast<std::size_t>(k)];
        if (!token.identifier()) continue;
        const std::string_view name = token.text;
        const bool called = k + 1 < end && scan.tokens[static_cast<std::size_t>(k + 1)].is("(");
        if (!called) continue;
        if (name == "__syncthreads" || name == "__syncthreads_count" || name == "__syncthreads_and" ||
            name == "__syncthreads_or" || name == "__syncwarp" || name == "__barrier_sync")
            return true;
        // block.sync(), this_thread_block().sync(), cg::sync(group), grid.sync()
        if (name == "sync") return true;
    }
    return false;
}

// Deeper nesting than any real kernel has; beyond it the recursive parser could exhaust the stack.
constexpr int kMaxNesting = 400;

class BodyParser {
public:
    BodyParser(const Scan& scan, const FunctionDefinition& function, BodyFacts& facts)
        : scan_(scan), function_(function), facts_(facts) {}

    void run() {
        if (function_.body_open < 0) return;
        parse_block(function_.body_open);
    }

private:
    const Token& tok(int index) const { return scan_.tokens[static_cast<std::size_t>(index)]; }

    int match(int index) const {
        const int partner = scan_.match[static_cast<std::size_t>(index)];
        return partner > index ? partner : index;  // never step backwards, even on broken input
    }

    // ---- scopes ---------------------------------------------------------------------------------
    std::vector<Declared> visible() const {
        std::vector<Declared> names;
        for (const auto& scope : scopes_)
            for (const Declared& d : scope) {
                // An inner declaration hides an outer one of the same name.
                std::erase_if(names, [&](const Declared& e) { return e.name == d.name; });
                names.push_back(d);
            }
        return names;
    }
    void declare(const std::vector<Declared>& names) {
        for (const Declared& d : names) {
            if (!scopes_.empty()) scopes_.back().push_back(d);
            note_local(d);
        }
    }
    void note_local(const Declared& d) {
        facts_.locals[function_.name].insert(d.name);
        facts_.types[d.name].insert(d.type);
    }

    bool directive_inside(std::size_t begin, std::size_t end) const {
        for (const Directive& directive : scan_.directives) {
            if (directive.hash >= end) break;
            if (directive.hash >= begin) return true;
        }
        return false;
    }

    // ---- rules ----------------------------------------------------------------------------------
    RuleDraft* add_rule(RuleKind kind, int first, int end_token, std::size_t begin, std::size_t end) {
        trim_range(scan_.source->text, begin, end);
        if (begin >= end || directive_inside(begin, end)) return nullptr;  // nothing, or #if inside: keep fixed
        RuleDraft rule;
        rule.kind = kind;
        rule.begin = begin;
        rule.end = end;
        rule.first_token = first;
        rule.end_token = end_token;
        rule.id_line = scan_.source->line_of(begin);
        rule.function = function_.name;
        rule.in_scope = visible();
        rule.loop_depth = loop_depth_;
        for (int k = first; k < end_token; ++k)
            if (tok(k).is("break") || tok(k).is("continue")) rule.has_break_or_continue = true;
        facts_.rules.push_back(std::move(rule));
        return &facts_.rules.back();
    }

    // ---- statements -----------------------------------------------------------------------------
    int parse_block(int open) {
        const int close = match(open);
        scopes_.emplace_back();
        blocks_.push_back(open);
        int i = open + 1;
        while (i < close) i = parse_statement(i, close, false);
        blocks_.pop_back();
        scopes_.pop_back();
        return close + 1;
    }

    // The substatement of if/else/for/while/do: a block, or one statement in its own scope.
    int parse_substatement(int i, int limit) {
        if (i >= limit) return limit;
        if (tok(i).is("{")) return parse_block(i);
        scopes_.emplace_back();
        blocks_.push_back(-1);
        const int next = parse_statement(i, limit, true);
        blocks_.pop_back();
        scopes_.pop_back();
        return next;
    }

    // Finds the ';' ending a simple statement. `macro_block` reports "NAME(args) {" at depth 0 (a
    // loop macro) when `allow_macro_block`; returns limit when no ';' comes before the block ends.
    int statement_end(int i, int limit, bool allow_macro_block, int* macro_block = nullptr) const {
        for (int j = i; j < limit;) {
            const Token& token = tok(j);
            if (token.is(";")) return j;
            if (token.is("}")) return limit;
            // Only NAME(args) { directly: a lambda or initializer has more before its brace.
            if (token.is("{") && allow_macro_block && j > i + 1 && j == match(i + 1) + 1 && tok(i).identifier() &&
                tok(i + 1).is("(")) {
                if (macro_block) *macro_block = j;
                return j;
            }
            if (token.is("(") || token.is("[") || token.is("{")) {
                j = std::min(match(j), limit) + 1;
                continue;
            }
            ++j;
        }
        return limit;
    }

    int parse_statement(int i, int limit, bool braceless) {
        // Guard the recursion: a pathological file must give an error, not overflow the stack.
        struct DepthGuard {
            int& depth;
            explicit DepthGuard(int& d) : depth(d) { ++depth; }
            ~DepthGuard() { --depth; }
        } guard(depth_);
        if (depth_ > kMaxNesting)
            throw_at(scan_.source->path, tok(i).line,
                     "statements nested more than " + std::to_string(kMaxNesting) + " levels deep",
                     "the grammar parser does not follow nesting this deep; simplify the code");
        const Token& token = tok(i);
        if (token.is("{")) return parse_block(i);
        if (token.is(";") || token.is("}") || token.is(")") || token.is("]")) return i + 1;
        if (token.is("if")) return parse_if(i, limit);
        if (token.is("else")) return i + 1;  // stray: the compiler reports it
        if (token.is("for")) return parse_for(i, limit);
        if (token.is("while")) return parse_while(i, limit);
        if (token.is("do")) return parse_do(i, limit);
        if (token.is("switch")) return parse_switch(i, limit);
        if (token.is("case") || (token.is("default") && i + 1 < limit && tok(i + 1).is(":"))) {
            for (int j = i + 1; j < limit; ++j) {
                if (tok(j).is(":")) return j + 1;
                if (tok(j).is("(") || tok(j).is("[")) j = std::min(match(j), limit - 1);
            }
            return limit;
        }
        if (token.identifier() && !kNotTypes.count(token.text) && i + 1 < limit && tok(i + 1).is(":"))
            return i + 2;  // a label
        if (token.is("typedef") || token.is("using") || token.is("static_assert") || token.is("template") ||
            token.is("namespace") || token.is("try")) {
            const int end = statement_end(i, limit, false);
            return end < limit ? end + 1 : limit;
        }
        if (token.is("return") || token.is("break") || token.is("continue") || token.is("goto") ||
            token.is("throw") || token.is("co_return")) {
            const int end = statement_end(i, limit, false);
            if (end < limit) add_statement(i, end, braceless);
            return end < limit ? end + 1 : limit;
        }
        int macro_block = -1;
        const int end = statement_end(i, limit, true, &macro_block);
        if (end < limit && tok(end).is(";")) {
            if (const auto names = declared_names(i, end)) {
                facts_.declarations.push_back({i, end, blocks_.empty() ? -1 : blocks_.back(), *names});
                declare(*names);
                note_shared(i, end, *names);
                return end + 1;
            }
            add_statement(i, end, braceless);
            return end + 1;
        }
        if (macro_block >= 0) {
            // FOREACH(i, n) { ... }: the header is fixed text, the block is parsed as usual.
            return parse_block(macro_block);
        }
        return limit;  // no ';' before the block ends: leave it fixed, the compiler will complain
    }

    void add_statement(int first, int semicolon, bool braceless) {
        RuleDraft* rule = add_rule(RuleKind::Statement, first, semicolon + 1, tok(first).begin, tok(semicolon).end);
        if (!rule) return;
        rule->braceless_body = braceless;
        rule->is_barrier = is_barrier_call(scan_, first, semicolon);
    }

    int parse_if(int i, int limit) {
        // An else-if chain is walked in a loop, so a long chain costs no stack.
        while (true) {
            int open = i + 1;
            if (open < limit && tok(open).is("constexpr")) ++open;
            if (open >= limit || !tok(open).is("(")) return open;
            const int close = std::min(match(open), limit);
            if (close >= limit) return limit;
            // "if (int x = f())" declares x for both branches: the condition is then fixed text.
            const auto condition_names = declared_names(open + 1, close);
            if (!condition_names) add_rule(RuleKind::IfCondition, open + 1, close, tok(open).end, tok(close).begin);
            const std::size_t if_index = facts_.ifs.size();
            if (!condition_names) facts_.ifs.push_back({function_.name, i, open, close, 0, false, loop_depth_});
            scopes_.emplace_back();
            if (condition_names) declare(*condition_names);
            struct ScopeEnd {
                std::vector<std::vector<Declared>>& scopes;
                ~ScopeEnd() { scopes.pop_back(); }
            } scope_end{scopes_};
            const int next = parse_substatement(close + 1, limit);
            if (if_index < facts_.ifs.size()) {
                facts_.ifs[if_index].then_end = next;
                facts_.ifs[if_index].has_else = next < limit && tok(next).is("else");
            }
            if (next >= limit || !tok(next).is("else")) return next;
            if (next + 1 < limit && tok(next + 1).is("if")) {
                i = next + 1;
                continue;
            }
            return parse_substatement(next + 1, limit);
        }
    }

    // Where the loop's unroll pragma starts: its '#' when the line above the `for` is one.
    std::size_t pragma_start(int for_token) const {
        const Token& token = tok(for_token);
        for (const RuleDraft& rule : facts_.rules)
            if (rule.kind == RuleKind::Pragma && rule.first_token == for_token) return std::min(rule.begin, token.begin);
        return token.begin;
    }

    void add_pragma_slot(int for_token) {
        const Token& token = tok(for_token);
        const SourceFile& source = *scan_.source;
        const std::size_t line_begin = source.line_starts[static_cast<std::size_t>(token.line - 1)];
        for (std::size_t k = line_begin; k < token.begin; ++k)
            if (scan_.masked[k] != ' ' && scan_.masked[k] != '\t') return;  // `for` is not first on its line
        const int above = token.line - 1;
        const Directive* pragma = nullptr;
        if (above >= 1) {
            for (const Directive& directive : scan_.directives) {
                if (directive.last_line == above && directive.line == above && directive.keyword == "pragma" &&
                    directive.rest.compare(0, 6, "unroll") == 0 &&
                    (directive.rest.size() == 6 || !is_identifier_char(directive.rest[6])))
                    pragma = &directive;
                if (directive.line > above) break;
            }
        }
        RuleDraft rule;
        rule.kind = RuleKind::Pragma;
        rule.function = function_.name;
        rule.in_scope = visible();
        rule.loop_depth = loop_depth_;
        rule.id_line = token.line;
        rule.first_token = rule.end_token = for_token;
        if (pragma) {
            std::size_t end = pragma->content_end;
            while (end > pragma->hash && (scan_.masked[end - 1] == ' ' || scan_.masked[end - 1] == '\t')) --end;
            rule.begin = pragma->hash;
            rule.end = end;
        } else {
            rule.begin = rule.end = token.begin;
            const std::string_view lead = std::string_view(source.text).substr(line_begin, token.begin - line_begin);
            // A comment before the `for` is not indentation: stand in spaces of the same width.
            rule.indent = lead.find_first_not_of(" \t") == std::string_view::npos ? std::string(lead)
                                                                                 : std::string(lead.size(), ' ');
        }
        facts_.rules.push_back(std::move(rule));
    }

    int parse_for(int i, int limit) {
        const int open = i + 1;
        if (open >= limit || !tok(open).is("(")) return open;
        const int close = std::min(match(open), limit);
        if (close >= limit) return limit;
        add_pragma_slot(i);
        std::vector<int> semicolons;
        for (int k = open + 1; k < close; ++k) {
            if (tok(k).is(";")) semicolons.push_back(k);
            else if (tok(k).is("(") || tok(k).is("[") || tok(k).is("{")) k = std::min(match(k), close);
        }
        std::vector<Declared> loop_names;
        if (semicolons.size() == 2) {
            const int first_semicolon = semicolons[0];
            const int second_semicolon = semicolons[1];
            const auto names = declared_names(open + 1, first_semicolon);
            if (names) loop_names = *names;
            if (RuleDraft* init = add_rule(RuleKind::ForInit, open + 1, first_semicolon, tok(open).end,
                                           tok(first_semicolon).begin))
                init->declares = loop_names;
            scopes_.push_back(loop_names);
            for (const Declared& d : loop_names) note_local(d);
            add_rule(RuleKind::ForCond, first_semicolon + 1, second_semicolon, tok(first_semicolon).end,
                     tok(second_semicolon).begin);
            add_rule(RuleKind::ForStep, second_semicolon + 1, close, tok(second_semicolon).end, tok(close).begin);
        } else {
            // Range for (or something we do not split): the header stays fixed, its variable is local.
            int colon = -1;
            for (int k = open + 1; k < close; ++k)
                if (tok(k).is(":")) {
                    colon = k;
                    break;
                }
            if (colon > 0)
                if (const auto names = declared_names(open + 1, colon)) loop_names = *names;
            scopes_.push_back(loop_names);
            for (const Declared& d : loop_names) note_local(d);
        }
        ++loop_depth_;
        const int next = parse_substatement(close + 1, limit);
        --loop_depth_;
        scopes_.pop_back();
        if (semicolons.size() == 2 && close + 1 < next)
            facts_.loops.push_back({function_.name, i, open, close, semicolons[0], semicolons[1], close + 1, next,
                                    tok(close + 1).is("{"), pragma_start(i), loop_depth_});
        return next;
    }

    int parse_while(int i, int limit) {
        const int open = i + 1;
        if (open >= limit || !tok(open).is("(")) return open;
        const int close = std::min(match(open), limit);
        if (close >= limit) return limit;
        ++loop_depth_;
        const int next = parse_substatement(close + 1, limit);
        --loop_depth_;
        return next;
    }

    int parse_do(int i, int limit) {
        ++loop_depth_;
        int next = parse_substatement(i + 1, limit);
        --loop_depth_;
        if (next < limit && tok(next).is("while") && next + 1 < limit && tok(next + 1).is("(")) {
            next = std::min(match(next + 1), limit) + 1;
            if (next < limit && tok(next).is(";")) ++next;
        }
        return std::min(next, limit);
    }

    int parse_switch(int i, int limit) {
        const int open = i + 1;
        if (open >= limit || !tok(open).is("(")) return open;
        const int close = std::min(match(open), limit);
        if (close >= limit) return limit;
        return parse_substatement(close + 1, limit);
    }

    // ---- declarations ---------------------------------------------------------------------------
    // Past a type name: Ident(::Ident)* with template arguments; returns first or first+... .
    int type_name_end(int p, int end) const {
        ++p;
        while (p < end) {
            if (tok(p).is("<")) {
                int depth = 0;
                int q = p;
                for (; q < end; ++q) {
                    const Token& t = tok(q);
                    if (t.is("<")) ++depth;
                    else if (t.is(">")) --depth;
                    else if (t.is(">>")) depth -= 2;
                    else if (t.is(";") || t.is("{") || t.is("}") || t.is("&&") || t.is("||")) return p;
                    else if (t.is("(") || t.is("[")) q = std::min(match(q), end - 1);
                    if (depth <= 0) break;
                }
                if (q >= end || depth < 0) return p;
                p = q + 1;
            }
            if (p + 1 < end && tok(p).is("::") && tok(p + 1).identifier()) {
                p += 2;
                continue;
            }
            break;
        }
        return p;
    }

    // Storage and placement words that do not change what a name can be used for.
    static bool storage_word(const Token& t) {
        return t.is("static") || t.is("extern") || t.is("register") || t.is("mutable") || t.is("thread_local") ||
               t.is("constexpr") || t.is("consteval") || t.is("constinit") || t.is("inline") || t.is("__shared__") ||
               t.is("__constant__") || t.is("__device__") || t.is("__managed__") || t.is("__forceinline__");
    }

    // Token spellings joined with a space only between two words: "const Prim&", "unsigned int*".
    std::string spell(int first, int end) const {
        std::string text;
        for (int k = first; k < end; ++k) {
            const Token& t = tok(k);
            if (storage_word(t)) continue;
            if (!text.empty() && t.identifier() && (is_identifier_char(text.back()))) text += ' ';
            text += t.text;
        }
        return text;
    }

    // The names a declaration [first, end) declares with their types, or nullopt when it is not one.
    std::optional<std::vector<Declared>> declared_names(int first, int end) const {
        int p = first;
        bool saw_type = false;
        bool saw_auto = false;
        bool saw_tag = false;
        while (p < end) {
            const Token& t = tok(p);
            if (!t.identifier() && !t.is("::")) break;
            if (t.is("alignas") || t.is("__align__") || t.is("__attribute__") || t.is("decltype")) {
                if (p + 1 < end && tok(p + 1).is("(")) {
                    if (t.is("decltype")) saw_type = saw_auto = true;
                    p = std::min(match(p + 1), end - 1) + 1;
                    continue;
                }
                break;
            }
            if (kSpecifiers.count(t.text)) {
                ++p;
                if (t.is("struct") || t.is("class") || t.is("union") || t.is("enum")) {
                    saw_tag = true;
                    saw_type = true;  // an anonymous struct { ... } x; has no name to follow
                }
                if ((t.is("struct") || t.is("class") || t.is("union") || t.is("enum") || t.is("typename")) && p < end &&
                    tok(p).identifier()) {
                    p = type_name_end(p, end);
                    saw_type = true;
                }
                continue;
            }
            if (kBuiltinTypes.count(t.text)) {
                if (t.is("auto")) saw_auto = true;
                saw_type = true;
                ++p;
                continue;
            }
            if (t.is("::")) {
                if (saw_type || p + 1 >= end || !tok(p + 1).identifier()) break;
                ++p;
                continue;
            }
            if (saw_type || kNotTypes.count(t.text)) break;
            p = type_name_end(p, end);
            saw_type = true;
        }
        const int type_end = p;
        // A deduced type is known to the compiler only: give it a type no other declaration shares.
        const std::string base = saw_auto ? "auto@" + std::to_string(tok(first).line) : spell(first, type_end);
        if (saw_tag && p < end && tok(p).is("{")) {
            // struct S { ... } s; or enum { A, B }; the body declares no locals we track.
            p = std::min(match(p), end - 1) + 1;
            if (p >= end) return std::vector<Declared>{};
        }
        if (!saw_type || p >= end) return std::nullopt;
        int q = p;
        while (q < end && (tok(q).is("*") || tok(q).is("&") || tok(q).is("&&") || tok(q).is("const") ||
                           tok(q).is("volatile") || tok(q).is("__restrict__") || tok(q).is("__restrict")))
            ++q;
        if (q >= end) return std::nullopt;
        if (saw_auto && tok(q).is("[")) {
            std::vector<Declared> names;  // auto [a, b] = ...
            for (int k = q + 1; k < match(q) && k < end; ++k)
                if (tok(k).identifier()) names.push_back({std::string(tok(k).text), base});
            return names;
        }
        if (!tok(q).identifier() || kNotTypes.count(tok(q).text)) return std::nullopt;
        if (q + 1 < end) {
            const Token& after = tok(q + 1);
            if (!(after.is("=") || after.is(",") || after.is("[") || after.is("(") || after.is("{") || after.is(":")))
                return std::nullopt;
        }
        // Declarators: split at ',' outside brackets; each names its first identifier, and its
        // pointer, reference and array parts complete the type.
        std::vector<Declared> names;
        bool want_name = true;
        int declarator_start = p;
        int after_name = -1;
        for (int k = p; k < end; ++k) {
            const Token& t = tok(k);
            if (t.is("(") || t.is("[") || t.is("{")) {
                if (t.is("[") && k == after_name) {
                    names.back().type += "[]";
                    after_name = std::min(match(k), end - 1) + 1;
                }
                k = std::min(match(k), end - 1);
                continue;
            }
            if (t.is(",")) {
                want_name = true;
                declarator_start = k + 1;
                continue;
            }
            if (t.is("=")) {
                want_name = false;
                continue;
            }
            if (want_name && t.identifier() && !kSpecifiers.count(t.text)) {
                names.push_back({std::string(t.text), base + spell(declarator_start, k)});
                want_name = false;
                after_name = k + 1;
            }
        }
        return names;
    }

    void note_shared(int first, int end, const std::vector<Declared>& declared) {
        int shared_at = -1;
        bool volatile_before = false;
        for (int k = first; k < end; ++k) {
            if (tok(k).is("__shared__")) {
                shared_at = k;
                break;
            }
            if (tok(k).is("volatile")) volatile_before = true;
        }
        if (shared_at < 0) return;
        const std::string& text = scan_.source->text;
        SharedDeclaration shared;
        shared.line = tok(shared_at).line;
        shared.volatile_elsewhere = volatile_before;
        for (const Declared& d : declared) shared.names.push_back(d.name);
        for (int k = first; k < end; ++k) {
            const Token& t = tok(k);
            if (!t.identifier() || kSpecifiers.count(t.text)) continue;
            if (!declared.empty() && t.text == declared.front().name) break;
            shared.type_words.emplace_back(t.text);
        }
        std::size_t slot = tok(shared_at).end;
        while (slot < text.size() && (text[slot] == ' ' || text[slot] == '\t')) ++slot;
        shared.slot_begin = shared.slot_end = slot;
        if (shared_at + 1 < end && tok(shared_at + 1).is("volatile") && tok(shared_at + 1).begin == slot) {
            shared.has_volatile = true;
            std::size_t stop = tok(shared_at + 1).end;
            while (stop < text.size() && (text[stop] == ' ' || text[stop] == '\t')) ++stop;
            shared.slot_end = stop;
        } else {
            for (int k = shared_at + 1; k < end; ++k)
                if (tok(k).is("volatile")) shared.volatile_elsewhere = true;
        }
        facts_.shared.push_back(shared);
    }

    const Scan& scan_;
    const FunctionDefinition& function_;
    BodyFacts& facts_;
    std::vector<std::vector<Declared>> scopes_;
    int loop_depth_ = 0;
    int depth_ = 0;
    std::vector<int> blocks_;  // the '{' of each enclosing block; -1 for a braceless body
};

}  // namespace

std::string type_key(std::string_view written) {
    std::string key;
    for (std::size_t i = 0; i < written.size(); ++i) {
        const char c = written[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            // Keep one space only where it separates two words ("unsigned int").
            std::size_t next = i;
            while (next < written.size() && (written[next] == ' ' || written[next] == '\t' || written[next] == '\n' || written[next] == '\r')) ++next;
            if (!key.empty() && next < written.size() && is_identifier_char(key.back()) && is_identifier_char(written[next])) key += ' ';
            i = next - 1;
            continue;
        }
        key += c;
    }
    return key;
}

void parse_function_body(const Scan& scan, const FunctionDefinition& function, BodyFacts& facts) {
    for (const ParameterTokens& p : parse_parameters(scan, function))
        if (!p.parameter.name.empty()) facts.types[p.parameter.name].insert(type_key(p.parameter.type));
    BodyParser(scan, function, facts).run();
}

std::set<std::string> called_names(const Scan& scan, const FunctionDefinition& function) {
    std::set<std::string> names;
    if (function.body_open < 0) return names;
    for (int k = function.body_open + 1; k < function.body_close; ++k) {
        const Token& token = scan.tokens[static_cast<std::size_t>(k)];
        const Token& next = scan.tokens[static_cast<std::size_t>(k + 1)];
        if (token.identifier() && (next.is("(") || next.is("<"))) names.emplace(token.text);
    }
    return names;
}

std::vector<std::string> local_uses(const Scan& scan, int first_token, int end_token, const std::set<std::string>& locals,
                                    const std::map<std::string, std::vector<std::string>>& macro_names) {
    std::vector<std::string> uses;
    std::set<std::string> expanded;  // each macro once: recursion through macros always ends
    std::vector<std::string> pending;
    for (int k = first_token; k < end_token; ++k) {
        const Token& token = scan.tokens[static_cast<std::size_t>(k)];
        if (!token.identifier()) continue;
        if (k > 0) {
            const Token& before = scan.tokens[static_cast<std::size_t>(k - 1)];
            if (before.is(".") || before.is("->") || before.is("::")) continue;
        }
        pending.emplace_back(token.text);
    }
    while (!pending.empty()) {
        const std::string name = pending.back();
        pending.pop_back();
        if (locals.count(name)) uses.push_back(name);
        const auto macro = macro_names.find(name);
        if (macro == macro_names.end() || !expanded.insert(name).second) continue;
        pending.insert(pending.end(), macro->second.begin(), macro->second.end());
    }
    std::sort(uses.begin(), uses.end());
    uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
    return uses;
}

}  // namespace gi::grammar_detail
