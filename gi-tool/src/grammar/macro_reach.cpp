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

// Every macro whose definition names one of `macros` (transitively), and those.
std::set<std::string> affected_macros(const grammar_detail::Scan& scan, const std::vector<std::string>& macros) {
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
    return affected;
}

grammar_detail::Scan parsed(const SourceFile& source) {
    grammar_detail::Scan scan = grammar_detail::scan_source(source);
    if (const auto problems = grammar_detail::match_brackets(scan); !problems.empty())
        throw Error(source.path + ": " + problems.front().what + " (the file must parse before its variants combine)");
    return scan;
}

}  // namespace

std::vector<std::string> functions_reached_by_macros(const SourceFile& source, const std::vector<std::string>& macros) {
    const grammar_detail::Scan scan = parsed(source);
    const std::set<std::string> affected = affected_macros(scan, macros);
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

std::vector<MacroUse> host_uses_of_macros(const SourceFile& source, const std::vector<std::string>& macros) {
    const grammar_detail::Scan scan = parsed(source);
    const std::set<std::string> affected = affected_macros(scan, macros);
    // Byte ranges the host compiler never sees: the bodies (and signatures) of device-only functions.
    std::vector<std::pair<std::size_t, std::size_t>> device_only;
    for (const grammar_detail::FunctionDefinition& f : grammar_detail::find_cuda_functions(scan)) {
        if (f.body_open < 0) continue;
        bool host_too = false;
        for (int k = f.first_token; k < f.name_token && !host_too; ++k) host_too = scan.tokens[static_cast<std::size_t>(k)].is("__host__");
        if (host_too) continue;
        device_only.emplace_back(scan.tokens[static_cast<std::size_t>(f.first_token)].begin,
                                 scan.tokens[static_cast<std::size_t>(f.body_close)].end);
    }
    auto on_device_only = [&](std::size_t offset) {
        return std::any_of(device_only.begin(), device_only.end(),
                           [&](const auto& range) { return offset >= range.first && offset < range.second; });
    };
    std::vector<MacroUse> uses;
    for (const grammar_detail::Token& token : scan.tokens)
        if (token.identifier() && affected.count(std::string(token.text)) && !on_device_only(token.begin))
            uses.push_back({std::string(token.text), token.line});
    for (const Directive& d : scan.directives) {
        if (d.keyword == "define" || d.keyword == "undef" || on_device_only(d.hash)) continue;
        for (const std::string& name : identifiers_in(d.rest))
            if (affected.count(name)) {
                uses.push_back({name, d.line});
                break;
            }
    }
    std::sort(uses.begin(), uses.end(), [](const MacroUse& a, const MacroUse& b) { return a.line < b.line; });
    return uses;
}

std::vector<HostReadGene> host_read_genes(const Grammar& grammar, const SourceFile& source) {
    std::vector<HostReadGene> read;
    for (const Gene& gene : grammar.genes) {
        if (gene.kind != GeneKind::Param && gene.kind != GeneKind::Guard) continue;
        const std::vector<MacroUse> uses = host_uses_of_macros(source, {gene.name});
        if (!uses.empty()) read.push_back({gene.name, gene.default_value, uses.front().line});
    }
    return read;
}

Grammar with_genes_kept_at_default(Grammar grammar, const std::vector<HostReadGene>& genes) {
    for (Gene& gene : grammar.genes)
        if (std::any_of(genes.begin(), genes.end(), [&](const HostReadGene& g) { return g.name == gene.name; }))
            gene.values = {gene.default_value};
    return grammar;
}

}  // namespace gi
