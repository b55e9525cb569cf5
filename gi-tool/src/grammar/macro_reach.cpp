#include "grammar/macro_reach.hpp"

#include <algorithm>
#include <set>

#include "grammar/functions.hpp"
#include "grammar/scan.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using grammar_detail::Directive;
using grammar_detail::is_identifier_char;

std::vector<std::string> identifiers_in(const std::string& text) {
    std::vector<std::string> names;
    for (std::size_t i = 0; i < text.size();) {
        const char c = text[i];
        if (is_identifier_char(c) && !(c >= '0' && c <= '9')) {
            std::size_t end = i;
            while (end < text.size() && is_identifier_char(text[end])) ++end;
            names.push_back(text.substr(i, end - i));
            i = end;
        } else if (c >= '0' && c <= '9') {
            while (i < text.size() && is_identifier_char(text[i])) ++i;  // 1e5f, 0x1Fu: not names
        } else {
            ++i;
        }
    }
    return names;
}

bool names_any(const std::string& text, const std::set<std::string>& names) {
    for (const std::string& name : identifiers_in(text))
        if (names.count(name)) return true;
    return false;
}

}  // namespace

std::vector<std::string> functions_reached_by_macros(const SourceFile& source, const std::vector<std::string>& macros) {
    grammar_detail::Scan scan = grammar_detail::scan_source(source);
    if (const auto problems = grammar_detail::match_brackets(scan); !problems.empty())
        throw Error(source.path + ": " + problems.front().what + " (the file must parse before its variants combine)");

    // Every macro whose definition names an affected one is affected too.
    std::set<std::string> affected(macros.begin(), macros.end());
    for (bool grew = true; grew;) {
        grew = false;
        for (const Directive& d : scan.directives) {
            if (d.keyword != "define") continue;
            const std::vector<std::string> names = identifiers_in(d.rest);
            if (names.empty() || affected.count(names.front())) continue;
            if (std::any_of(names.begin() + 1, names.end(), [&](const std::string& n) { return affected.count(n) > 0; })) {
                affected.insert(names.front());
                grew = true;
            }
        }
    }

    std::vector<std::string> reached;
    for (const grammar_detail::FunctionDefinition& f : grammar_detail::find_cuda_functions(scan)) {
        if (f.body_open < 0) continue;
        const std::size_t begin = scan.tokens[static_cast<std::size_t>(f.first_token)].begin;
        const std::size_t end = scan.tokens[static_cast<std::size_t>(f.body_close)].end;
        bool hit = false;
        for (int k = f.first_token; k <= f.body_close && !hit; ++k) {
            const grammar_detail::Token& token = scan.tokens[static_cast<std::size_t>(k)];
            hit = token.identifier() && affected.count(std::string(token.text)) > 0;
        }
        for (const Directive& d : scan.directives)
            if (!hit && d.hash > begin && d.hash < end) hit = names_any(d.rest, affected);
        if (hit && std::find(reached.begin(), reached.end(), f.name) == reached.end()) reached.push_back(f.name);
    }
    return reached;
}

}  // namespace gi
