#include "grammar/scan.hpp"

namespace gi::grammar_detail {

bool is_identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
}

std::string trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n\f\v");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n\f\v");
    return std::string(text.substr(first, last - first + 1));
}

void trim_range(const std::string& text, std::size_t& begin, std::size_t& end) {
    auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v'; };
    while (begin < end && space(text[begin])) ++begin;
    while (end > begin && space(text[end - 1])) --end;
}

namespace {

void find_directives(Scan& scan) {
    const std::string& m = scan.masked;
    const SourceFile& source = *scan.source;
    scan.directive_line.assign(source.line_starts.size() + 2, false);
    std::size_t line = 0;  // 0-based index into line_starts
    while (line < source.line_starts.size()) {
        const std::size_t start = source.line_starts[line];
        std::size_t k = start;
        while (k < m.size() && (m[k] == ' ' || m[k] == '\t' || m[k] == '\r' || m[k] == '\f' || m[k] == '\v')) ++k;
        if (k >= m.size() || m[k] != '#') {
            ++line;
            continue;
        }
        Directive directive;
        directive.hash = k;
        directive.line_begin = start;
        directive.line = static_cast<int>(line) + 1;
        // The logical line runs on while a line ends in a backslash.
        std::size_t end = k;
        std::string joined;
        while (true) {
            std::size_t newline = m.find('\n', end);
            if (newline == std::string::npos) newline = m.size();
            std::size_t content_end = newline;
            if (content_end > end && m[content_end - 1] == '\r') --content_end;
            std::size_t before_backslash = content_end;
            while (before_backslash > end && (m[before_backslash - 1] == ' ' || m[before_backslash - 1] == '\t'))
                --before_backslash;
            const bool continued = before_backslash > end && m[before_backslash - 1] == '\\' && newline < m.size();
            joined += m.substr(end, (continued ? before_backslash - 1 : content_end) - end);
            ++line;
            if (!continued) {
                directive.content_end = content_end;
                directive.next = newline < m.size() ? newline + 1 : m.size();
                break;
            }
            joined += ' ';
            end = newline + 1;
        }
        directive.last_line = static_cast<int>(line);
        for (int l = directive.line; l <= directive.last_line; ++l) scan.directive_line[static_cast<std::size_t>(l)] = true;
        // joined starts at '#'
        std::size_t p = 1;
        while (p < joined.size() && (joined[p] == ' ' || joined[p] == '\t')) ++p;
        std::size_t q = p;
        while (q < joined.size() && is_identifier_char(joined[q])) ++q;
        directive.keyword = joined.substr(p, q - p);
        directive.rest = trim(std::string_view(joined).substr(q));
        scan.directives.push_back(std::move(directive));
    }
}

void tokenize(Scan& scan) {
    const std::string& m = scan.masked;
    std::size_t directive = 0;
    std::size_t i = 0;
    static const char* const kLongPuncts[] = {"->*", "<<=", ">>=", "...", "::", "->", "++", "--", "<<", ">>",
                                              "<=",  ">=",  "==",  "!=", "&&", "||", "+=", "-=", "*=", "/=",
                                              "%=",  "&=",  "|=",  "^=", ".*"};
    while (i < m.size()) {
        if (directive < scan.directives.size() && i >= scan.directives[directive].line_begin) {
            if (i < scan.directives[directive].next) i = scan.directives[directive].next;
            ++directive;
            continue;
        }
        const char c = m[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\\') {
            ++i;
            continue;
        }
        Token token;
        token.begin = i;
        if ((c >= '0' && c <= '9') || (c == '.' && i + 1 < m.size() && m[i + 1] >= '0' && m[i + 1] <= '9')) {
            token.kind = Token::Kind::Number;
            std::size_t j = i + 1;
            while (j < m.size()) {
                const char d = m[j];
                if (is_identifier_char(d) || d == '.' || d == '\'') {
                    ++j;
                } else if ((d == '+' || d == '-') && (m[j - 1] == 'e' || m[j - 1] == 'E' || m[j - 1] == 'p' || m[j - 1] == 'P')) {
                    ++j;
                } else {
                    break;
                }
            }
            token.end = j;
        } else if (is_identifier_char(c)) {
            token.kind = Token::Kind::Identifier;
            std::size_t j = i;
            while (j < m.size() && is_identifier_char(m[j])) ++j;
            // A prefix glued to a literal (u8"..", L'x', R"(..)") belongs to the literal.
            if (j < m.size() && (m[j] == '"' || m[j] == '\'')) {
                const std::string prefix = m.substr(i, j - i);
                if (prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L" || prefix == "R" ||
                    prefix == "u8R" || prefix == "uR" || prefix == "UR" || prefix == "LR") {
                    i = j;
                    continue;  // the literal token starts at the quote; the prefix joins it below
                }
            }
            token.end = j;
        } else if (c == '"' || c == '\'') {
            token.kind = Token::Kind::Literal;
            std::size_t j = i + 1;
            while (j < m.size() && m[j] != c) ++j;  // contents are blanks after masking
            token.end = j < m.size() ? j + 1 : m.size();
            std::size_t prefix = i;
            while (prefix > 0 && is_identifier_char(m[prefix - 1])) --prefix;
            token.begin = prefix;
        } else {
            token.kind = Token::Kind::Punct;
            token.end = i + 1;
            for (const char* p : kLongPuncts) {
                const std::string_view spelling(p);
                if (m.compare(i, spelling.size(), spelling) == 0) {
                    token.end = i + spelling.size();
                    break;
                }
            }
        }
        token.text = std::string_view(m).substr(token.begin, token.end - token.begin);
        token.line = scan.source->line_of(token.begin);
        i = token.end;
        scan.tokens.push_back(token);
    }
}

}  // namespace

Scan scan_source(const SourceFile& source) {
    Scan scan;
    scan.source = &source;
    scan.masked = mask_comments_and_strings(source);
    find_directives(scan);
    tokenize(scan);
    return scan;
}

std::vector<BracketProblem> match_brackets(Scan& scan) {
    std::vector<BracketProblem> problems;
    scan.match.assign(scan.tokens.size(), -1);
    std::vector<int> open;
    for (std::size_t i = 0; i < scan.tokens.size(); ++i) {
        const Token& token = scan.tokens[i];
        if (token.kind != Token::Kind::Punct || token.text.size() != 1) continue;
        const char c = token.text[0];
        if (c == '(' || c == '[' || c == '{') {
            open.push_back(static_cast<int>(i));
        } else if (c == ')' || c == ']' || c == '}') {
            const char wanted = c == ')' ? '(' : c == ']' ? '[' : '{';
            if (open.empty()) {
                problems.push_back({std::string("'") + c + "' closes nothing", token.begin, std::string::npos, 0});
                return problems;
            }
            const Token& opener = scan.tokens[static_cast<std::size_t>(open.back())];
            if (opener.text[0] != wanted) {
                problems.push_back({std::string("'") + c + "' does not match the '" + opener.text[0] + "'",
                                    token.begin, opener.begin, opener.text[0]});
                return problems;
            }
            scan.match[i] = open.back();
            scan.match[static_cast<std::size_t>(open.back())] = static_cast<int>(i);
            open.pop_back();
        }
    }
    if (!open.empty()) {
        const Token& opener = scan.tokens[static_cast<std::size_t>(open.front())];
        // The innermost unclosed opener is usually nearer the mistake, the outermost tells the scope.
        const Token& inner = scan.tokens[static_cast<std::size_t>(open.back())];
        problems.push_back({std::string("'") + inner.text[0] + "' is never closed", inner.begin, inner.begin, inner.text[0]});
        (void)opener;
    }
    return problems;
}

}  // namespace gi::grammar_detail
