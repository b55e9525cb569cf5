#include "grammar/build_grammar.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "grammar/body.hpp"
#include "grammar/directives.hpp"
#include "grammar/functions.hpp"
#include "grammar/genes.hpp"
#include "grammar/scan.hpp"
#include "grammar/transforms.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

using namespace grammar_detail;

void check_text(const SourceFile& source) {
    if (source.text.find_first_not_of(" \t\r\n\f\v") == std::string::npos)
        throw_at(source.path, 0, "the file is empty", "pass the .cu file that holds the kernel");
    const std::size_t nul = source.text.find('\0');
    if (nul != std::string::npos)
        throw_at(source.path, source.line_of(nul), "not a text file (it contains a NUL byte)",
                 "pass the kernel's CUDA source, not a binary or an object file");
}

// Macros whose replacement opens or closes braces or parentheses: code using them inside a kernel
// has a block structure the parser cannot see.
std::vector<const MacroDefinition*> unbalanced_macros(const DirectiveFacts& facts) {
    std::vector<const MacroDefinition*> found;
    for (const MacroDefinition& macro : facts.defines)
        if (macro.unbalanced) found.push_back(&macro);
    return found;
}

[[noreturn]] void throw_macro_problem(const Scan& scan, const MacroDefinition& macro, const Token& use) {
    const Directive& d = scan.directives[static_cast<std::size_t>(macro.directive)];
    throw_at(scan.source->path, use.line,
             "the macro " + macro.name + " (#defined at line " + std::to_string(d.line) +
                 ") opens or closes braces or parentheses: a macro the parser cannot follow",
             "write the braces in the code itself, or expand the macro by hand in the kernel");
}

void check_brackets(Scan& scan, const DirectiveFacts& facts) {
    const std::vector<BracketProblem> problems = match_brackets(scan);
    if (problems.empty()) return;
    const SourceFile& source = *scan.source;
    // A macro that hides a brace is the likelier cause than a typo when one is used anywhere.
    for (const MacroDefinition* macro : unbalanced_macros(facts))
        for (const Token& token : scan.tokens)
            if (token.identifier() && token.text == macro->name) throw_macro_problem(scan, *macro, token);
    // So is an #if branch whose braces do not balance.
    for (const ConditionalRegion& region : facts.regions) {
        int depth = 0;
        for (const Token& token : scan.tokens) {
            if (token.begin < region.begin || token.begin >= region.end) continue;
            if (token.is("{")) ++depth;
            if (token.is("}")) --depth;
        }
        if (depth != 0) {
            const Directive& d = scan.directives[static_cast<std::size_t>(region.opening_directive)];
            throw_at(source.path, d.line,
                     "the #" + d.keyword + " branch starting here has " + std::to_string(depth > 0 ? depth : -depth) +
                         (depth > 0 ? " more '{' than '}'" : " more '}' than '{'") + ", so the braces do not balance on their own",
                     "put whole blocks in each branch, repeating the shared line in every branch");
        }
    }
    const BracketProblem& problem = problems.front();
    std::string where;
    const std::size_t about = problem.opened_at != std::string::npos ? problem.opened_at : problem.where;
    const std::string near = function_near(scan, about);
    if (problem.opened_at != std::string::npos && problem.opened_at == problem.where) {
        // An opener never closed: report it where it opened.
        const std::string kind = problem.opener == '{' ? "braces" : problem.opener == '(' ? "parentheses" : "brackets";
        throw_at(source.path, source.line_of(problem.where),
                 std::string("unbalanced ") + kind + ": '" + problem.opener + "' opened here is never closed" +
                     (near.empty() ? "" : " (" + near + ")"),
                 "add the missing closing '" + std::string(1, problem.opener == '{' ? '}' : problem.opener == '(' ? ')' : ']') +
                     "' or remove the extra opening one");
    }
    std::string what = "unbalanced brackets: " + problem.what;
    if (problem.opened_at != std::string::npos) what += " opened at line " + std::to_string(source.line_of(problem.opened_at));
    if (!near.empty()) what += " (" + near + ")";
    throw_at(source.path, source.line_of(problem.where), what, "check the braces and parentheses around this line");
}

std::string list_names(const std::vector<FunctionDefinition>& functions, bool global) {
    std::string names;
    for (const FunctionDefinition& f : functions)
        if (f.is_global == global && f.body_open >= 0 && names.find("'" + f.name + "'") == std::string::npos)
            names += (names.empty() ? "'" : ", '") + f.name + "'";
    return names;
}

std::vector<FunctionDefinition> select_functions(const Scan& scan, const DirectiveFacts& facts,
                                                 const std::vector<FunctionDefinition>& all, const GrammarOptions& options,
                                                 std::vector<std::string>& notes) {
    const SourceFile& source = *scan.source;
    std::vector<FunctionDefinition> selected;
    const std::string kernels = list_names(all, true);
    if (options.functions.empty()) {
        for (const FunctionDefinition& f : all)
            if (f.is_global && f.body_open >= 0) selected.push_back(f);
        if (selected.empty())
            throw_at(source.path, 0, "no __global__ function is defined in the file",
                     "pass the .cu file that defines the kernel; a declaration alone is not enough");
    }
    for (const std::string& name : options.functions) {
        bool found = false;
        bool declared_only = false;
        bool device_only = false;
        const std::string base = template_base_name(name);
        for (const FunctionDefinition& f : all) {
            if (f.name != base) continue;
            if (base != name && !f.is_template)
                throw_at(source.path, scan.tokens[static_cast<std::size_t>(f.name_token)].line,
                         "'" + name + "' names template arguments, but '" + base + "' is not a template",
                         "pass --function " + base);
            if (!f.is_global) device_only = true;
            else if (f.body_open < 0) declared_only = true;
            else {
                found = true;
                if (std::none_of(selected.begin(), selected.end(), [&](const FunctionDefinition& s) {
                        return s.body_open == f.body_open;
                    }))
                    selected.push_back(f);
            }
        }
        if (found) continue;
        std::string what = "no __global__ function '" + name + "' in the file";
        if (declared_only) what = "the kernel '" + name + "' is only declared in the file, not defined";
        else if (device_only) what = "'" + name + "' is a __device__ function, not a __global__ kernel";
        for (const Directive& d : scan.directives)
            if (d.keyword == "define" && d.rest.find(name) != std::string::npos) {
                what += "; the name appears inside the #define at line " + std::to_string(d.line) +
                        ", and kernels made by macros cannot be parsed";
                break;
            }
        if (what.find("#define") == std::string::npos)
            for (const Token& token : scan.tokens)
                if (token.identifier() && token.text == name) {
                    what += "; the name appears at line " + std::to_string(token.line) +
                            " but not as a __global__ function definition (a macro that makes kernels cannot be parsed)";
                    break;
                }
        (void)facts;
        throw_at(source.path, 0, what,
                 kernels.empty() ? "the file defines no __global__ function"
                                 : "the __global__ functions found are " + kernels + "; pass one of them with --function");
    }
    if (options.include_helpers) {
        // A helper that another kernel of the file also calls (directly or through other helpers) is
        // left as it is: an edit to it would change that kernel too, and nothing checks that one.
        std::map<std::string, std::string> shared;  // helper -> a kernel not registered that reaches it
        for (const FunctionDefinition& kernel : all) {
            if (!kernel.is_global || kernel.body_open < 0) continue;
            if (std::any_of(selected.begin(), selected.end(), [&](const FunctionDefinition& s) { return s.body_open == kernel.body_open; }))
                continue;
            std::vector<const FunctionDefinition*> frontier{&kernel};
            std::set<std::string> seen;
            while (!frontier.empty()) {
                const FunctionDefinition* f = frontier.back();
                frontier.pop_back();
                for (const std::string& callee : called_names(scan, *f)) {
                    if (!seen.insert(callee).second) continue;
                    for (const FunctionDefinition& g : all)
                        if (g.name == callee && !g.is_global && g.body_open >= 0) {
                            shared.emplace(callee, kernel.name);
                            frontier.push_back(&g);
                        }
                }
            }
        }
        // Follow calls transitively to the __device__ functions defined in the same file.
        std::set<std::string> followed;
        for (std::size_t next = 0; next < selected.size(); ++next) {
            for (const std::string& callee : called_names(scan, selected[next])) {
                if (followed.count(callee)) continue;
                followed.insert(callee);
                if (const auto it = shared.find(callee); it != shared.end()) {
                    notes.push_back("helper '" + callee + "' is not evolved: the kernel '" + it->second +
                                    "', which is not registered, calls it too, and an edit would change that kernel unchecked");
                    continue;
                }
                for (const FunctionDefinition& f : all)
                    if (f.name == callee && !f.is_global && f.body_open >= 0 &&
                        std::none_of(selected.begin(), selected.end(),
                                     [&](const FunctionDefinition& s) { return s.body_open == f.body_open; }))
                        selected.push_back(f);
            }
        }
        std::stable_sort(selected.begin(), selected.end(), [](const FunctionDefinition& a, const FunctionDefinition& b) {
            if (a.is_global != b.is_global) return a.is_global;
            return !a.is_global && a.first_token < b.first_token;
        });
    }
    return selected;
}

void check_selected_structure(const Scan& scan, const DirectiveFacts& facts, const std::vector<FunctionDefinition>& selected) {
    const SourceFile& source = *scan.source;
    for (const FunctionDefinition& function : selected) {
        const std::size_t begin = scan.tokens[static_cast<std::size_t>(function.first_token)].begin;
        const std::size_t end = scan.tokens[static_cast<std::size_t>(function.body_close)].end;
        for (const ConditionalRegion& region : facts.regions) {
            if (region.end <= begin || region.begin >= end) continue;
            int depth = 0;
            bool negative = false;
            for (int k = function.first_token; k <= function.body_close; ++k) {
                const Token& token = scan.tokens[static_cast<std::size_t>(k)];
                if (token.begin < region.begin || token.begin >= region.end) continue;
                if (token.is("{")) ++depth;
                if (token.is("}")) --depth;
                if (depth < 0) negative = true;
            }
            if (depth != 0 || negative) {
                const Directive& d = scan.directives[static_cast<std::size_t>(region.opening_directive)];
                throw_at(source.path, d.line,
                         "the #" + d.keyword + " branch starting here (inside '" + function.name +
                             "') does not balance its braces on its own",
                         "put whole blocks in each branch, repeating the shared line in every branch");
            }
        }
        for (const MacroDefinition* macro : unbalanced_macros(facts))
            for (int k = function.body_open; k <= function.body_close; ++k) {
                const Token& token = scan.tokens[static_cast<std::size_t>(k)];
                if (token.identifier() && token.text == macro->name) throw_macro_problem(scan, *macro, token);
            }
    }
}

struct Slot {
    std::size_t begin = 0;
    std::size_t end = 0;
    Piece::Kind kind = Piece::Kind::RuleSlot;
    int index = -1;
    std::string extra;
    int order = 0;
};

std::map<std::string, std::string> file_level_macros(const Scan& scan, const DirectiveFacts& facts) {
    std::map<std::string, std::string> macros;
    std::size_t next_define = 0;
    for (std::size_t d = 0; d < scan.directives.size(); ++d) {
        const Directive& directive = scan.directives[d];
        if (directive.keyword == "undef" && facts.enclosing(directive.hash).empty()) {
            std::size_t end = 0;
            while (end < directive.rest.size() && is_identifier_char(directive.rest[end])) ++end;
            macros.erase(directive.rest.substr(0, end));
        }
        while (next_define < facts.defines.size() && facts.defines[next_define].directive <= static_cast<int>(d)) {
            const MacroDefinition& macro = facts.defines[next_define++];
            if (macro.directive != static_cast<int>(d) || macro.function_like) continue;
            if (!macro.conditional || macro.default_guarded) macros[macro.name] = macro.value;
        }
    }
    return macros;
}

// A name declared with one type everywhere is written plainly; one declared with several types
// (a Real d here, a Prim d there) is written "d:Real", so a statement using one never moves to
// where the name means the other.
std::string scoped_name(const Declared& declared, const std::map<std::string, std::set<std::string>>& types) {
    const auto found = types.find(declared.name);
    if (found == types.end() || found->second.size() < 2) return declared.name;
    std::string type = declared.type;
    std::replace(type.begin(), type.end(), ' ', '_');
    return declared.name + ":" + type;
}

// Each used name resolved to the declaration visible at the slot (or the one the slot declares).
std::vector<std::string> scoped_uses(const RuleDraft& draft, const std::vector<std::string>& names,
                                     const std::map<std::string, std::set<std::string>>& types) {
    std::vector<std::string> uses;
    for (const std::string& name : names) {
        std::string scoped = name;  // not visible here: left plain, which no scoped name matches
        for (const Declared& d : draft.in_scope)
            if (d.name == name) scoped = scoped_name(d, types);
        for (const Declared& d : draft.declares)
            if (d.name == name) scoped = scoped_name(d, types);
        uses.push_back(scoped);
    }
    std::sort(uses.begin(), uses.end());
    uses.erase(std::unique(uses.begin(), uses.end()), uses.end());
    return uses;
}

}  // namespace

Grammar build_grammar(const SourceFile& source, const GrammarOptions& options) {
    check_text(source);
    Scan scan = scan_source(source);
    const DirectiveFacts facts = analyse_directives(scan);
    check_brackets(scan, facts);
    const std::vector<FunctionDefinition> all = find_cuda_functions(scan);
    std::vector<std::string> selection_notes;
    const std::vector<FunctionDefinition> selected = select_functions(scan, facts, all, options, selection_notes);
    check_selected_structure(scan, facts, selected);

    Grammar grammar;
    grammar.notes = selection_notes;
    grammar.source_path = source.path;
    grammar.file_name = rule_id_file_part(source.name);
    grammar.source_hash = sha256_hex(source.text);
    grammar.conditions = facts.conditions;
    grammar.file_macros = file_level_macros(scan, facts);

    BodyFacts bodies;
    for (const FunctionDefinition& function : selected) {
        Function described;
        described.name = function.name;
        described.is_global = function.is_global;
        described.is_template = function.is_template;
        described.first_line = scan.tokens[static_cast<std::size_t>(function.first_token)].line;
        described.body_first_line = scan.tokens[static_cast<std::size_t>(function.body_open)].line;
        described.last_line = scan.tokens[static_cast<std::size_t>(function.body_close)].line;
        for (const ParameterTokens& p : parse_parameters(scan, function)) described.parameters.push_back(p.parameter);
        grammar.functions.push_back(std::move(described));
        parse_function_body(scan, function, bodies);
    }
    std::vector<GeneDraft> genes = make_genes({scan, facts, selected, bodies, options}, grammar.notes);
    if (options.transforms)
        for (GeneDraft& transform : make_transform_genes({scan, facts, selected, bodies, options}, grammar.file_name))
            genes.push_back(std::move(transform));

    const auto macro_names = macro_identifiers(facts);
    // Rules in file order, numbered per kind and line.
    std::vector<RuleDraft> drafts = bodies.rules;
    std::stable_sort(drafts.begin(), drafts.end(), [](const RuleDraft& a, const RuleDraft& b) { return a.begin < b.begin; });
    std::map<std::pair<RuleKind, int>, int> per_line;
    std::vector<Slot> slots;
    for (const RuleDraft& draft : drafts) {
        Rule rule;
        const int count = ++per_line[{draft.kind, draft.id_line}];
        rule.id = std::string(rule_kind_prefix(draft.kind)) + grammar.file_name + "_" + std::to_string(draft.id_line) +
                  (count > 1 ? "." + std::to_string(count) : "");
        rule.kind = draft.kind;
        rule.text = source.text.substr(draft.begin, draft.end - draft.begin);
        rule.line = source.line_of(draft.begin);
        rule.function = draft.function;
        rule.uses = scoped_uses(draft, local_uses(scan, draft.first_token, draft.end_token,
                                                  bodies.locals[draft.function], macro_names),
                                bodies.types);
        for (const Declared& d : draft.declares) rule.declares.push_back(scoped_name(d, bodies.types));
        for (const Declared& d : draft.in_scope) rule.in_scope.push_back(scoped_name(d, bodies.types));
        std::sort(rule.in_scope.begin(), rule.in_scope.end());
        rule.in_scope.erase(std::unique(rule.in_scope.begin(), rule.in_scope.end()), rule.in_scope.end());
        rule.loop_depth = draft.loop_depth;
        rule.has_break_or_continue = draft.has_break_or_continue;
        rule.is_barrier = draft.is_barrier;
        rule.braceless_body = draft.braceless_body;
        rule.conditions = facts.enclosing(draft.begin);
        slots.push_back({draft.begin, draft.end, Piece::Kind::RuleSlot, static_cast<int>(grammar.rules.size()), draft.indent,
                         static_cast<int>(slots.size())});
        grammar.rules.push_back(std::move(rule));
    }
    for (const GeneDraft& gene : genes) {
        for (const GeneSlotDraft& slot : gene.slots)
            slots.push_back({slot.begin, slot.end, Piece::Kind::GeneSlot, static_cast<int>(grammar.genes.size()), slot.extra,
                             static_cast<int>(slots.size())});
        grammar.genes.push_back(gene.gene);
    }

    std::sort(slots.begin(), slots.end(), [](const Slot& a, const Slot& b) {
        if (a.begin != b.begin) return a.begin < b.begin;
        if ((a.end == a.begin) != (b.end == b.begin)) return a.end == a.begin;  // empty slots first
        return a.order < b.order;
    });
    std::size_t cursor = 0;
    for (const Slot& slot : slots) {
        if (slot.begin < cursor)
            throw_at(source.path, source.line_of(slot.begin), "internal error: two grammar slots overlap here",
                     "please report this file to the gi-optimize maintainers");
        if (slot.begin > cursor) {
            Piece literal;
            literal.kind = Piece::Kind::Literal;
            literal.text = source.text.substr(cursor, slot.begin - cursor);
            literal.line = source.line_of(cursor);
            grammar.pieces.push_back(std::move(literal));
        }
        Piece piece;
        piece.kind = slot.kind;
        piece.index = slot.index;
        piece.text = source.text.substr(slot.begin, slot.end - slot.begin);
        piece.extra = slot.extra;
        piece.line = source.line_of(slot.begin);
        grammar.pieces.push_back(std::move(piece));
        cursor = slot.end;
    }
    if (cursor < source.text.size()) {
        Piece literal;
        literal.text = source.text.substr(cursor);
        literal.line = source.line_of(cursor);
        grammar.pieces.push_back(std::move(literal));
    }
    return grammar;
}

}  // namespace gi
