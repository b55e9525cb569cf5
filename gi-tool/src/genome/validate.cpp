#include "genome/validate.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

std::string kind_words(RuleKind kind) { return std::string(rule_kind_info(kind).words); }

bool contains(const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
}

// Names `source` needs from its surroundings that `target`'s place does not offer.
std::vector<std::string> missing_names(const Rule& target, const Rule& source) {
    std::vector<std::string> missing;
    for (const std::string& name : source.uses)
        if (!contains(source.declares, name) && !contains(target.in_scope, name) && !contains(missing, name))
            missing.push_back(name);
    return missing;
}

bool same_names(std::vector<std::string> a, std::vector<std::string> b) {
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    b.erase(std::unique(b.begin(), b.end()), b.end());
    return a == b;
}

// The same verdict as scope_problem without building messages: mutation asks it for every pair of
// rules.
bool scope_ok(const Rule& target, const Rule& source) {
    if (target.kind != source.kind) return false;
    if (source.has_break_or_continue && target.loop_depth == 0) return false;
    for (const std::string& name : source.uses)
        if (!contains(source.declares, name) && !contains(target.in_scope, name)) return false;
    return target.kind != RuleKind::ForInit || same_names(target.declares, source.declares);
}

// Why copying `source` over / before `target` could not compile; empty when it is safe.
std::string scope_problem(const Rule& target, const Rule& source) {
    if (target.kind != source.kind)
        return "<" + source.id + "> is " + kind_words(source.kind) + " but <" + target.id + "> is " +
               kind_words(target.kind) + "; only rules of the same kind may be exchanged";
    if (const auto missing = missing_names(target, source); !missing.empty())
        return "<" + source.id + "> uses " + join(missing, ", ") + ", not visible at line " +
               std::to_string(target.line) + " where <" + target.id + "> stands";
    if (target.kind == RuleKind::ForInit && !same_names(target.declares, source.declares))
        return "for-loop init <" + source.id + "> declares {" + join(source.declares, ", ") + "} but <" +
               target.id + "> declares {" + join(target.declares, ", ") +
               "}; the loop body needs exactly the variables its own init declares";
    if (source.has_break_or_continue && target.loop_depth == 0)
        return "<" + source.id + "> holds break/continue but <" + target.id + "> is not inside a loop";
    return {};
}

bool is_identifier_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Identifiers a piece of code mentions, skipping comments, string and character literals and
// member names after '.' or '->' (they belong to a type, not to a scope).
std::set<std::string> identifiers_in(const std::string& code) {
    std::set<std::string> names;
    char last = ' ', before_last = ' ';  // the last two punctuation characters, for '.' and '->'
    auto punctuation = [&](char c) {
        before_last = last;
        last = c;
    };
    std::size_t i = 0;
    while (i < code.size()) {
        const char c = code[i];
        if (c == '/' && i + 1 < code.size() && code[i + 1] == '/') {
            i = std::min(code.find('\n', i), code.size());
        } else if (c == '/' && i + 1 < code.size() && code[i + 1] == '*') {
            const std::size_t end = code.find("*/", i + 2);
            i = end == std::string::npos ? code.size() : end + 2;
        } else if (c == '"' || c == '\'') {
            std::size_t j = i + 1;
            while (j < code.size() && code[j] != c) j += code[j] == '\\' ? 2 : 1;
            i = j + 1;
            punctuation(c);
        } else if (is_identifier_start(c)) {
            std::size_t j = i;
            while (j < code.size() && is_identifier_char(code[j])) ++j;
            if (last != '.' && !(last == '>' && before_last == '-')) names.insert(code.substr(i, j - i));
            punctuation('a');
            i = j;
        } else if (std::isdigit(static_cast<unsigned char>(c))) {
            while (i < code.size() && (is_identifier_char(code[i]) || code[i] == '.')) ++i;  // 1.5e3f, 0x1fu
            punctuation('0');
        } else {
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') punctuation(c);
            ++i;
        }
    }
    return names;
}

bool is_return_statement(const Rule& rule) {
    const std::size_t start = rule.text.find_first_not_of(" \t\n");
    return rule.kind == RuleKind::Statement && start != std::string::npos && rule.text.compare(start, 6, "return") == 0 &&
           (start + 6 == rule.text.size() || !is_identifier_char(rule.text[start + 6]));
}

void check_setting(const GeneSetting& setting, const Grammar& grammar, std::vector<GenomeProblem>& problems) {
    const std::string item = excerpt(setting.name + "=" + setting.value);
    const Gene* gene = grammar.find_gene(setting.name);
    if (gene == nullptr) {
        std::vector<std::string> names;
        for (const Gene& g : grammar.genes) names.push_back(g.name);
        problems.push_back({item, "the kernel has no gene " + excerpt(setting.name) +
                                      (names.empty() ? std::string(" (it has no genes)")
                                                     : " (its genes: " + join(names, ", ") + ")")});
        return;
    }
    if (!contains(gene->values, setting.value))
        problems.push_back({item, "gene " + gene->name + " cannot be " + excerpt(setting.value) +
                                      " (allowed: " + join(gene->values, ", ") + ")"});
}

void check_edit(const Edit& edit, const Grammar& grammar, const CopyContext& context,
                std::vector<GenomeProblem>& problems) {
    const std::string item = excerpt(edit_to_text(edit));
    auto problem = [&](const std::string& message) { problems.push_back({item, message}); };

    const Rule* target = grammar.find_rule(edit.target);
    if (target == nullptr) {
        problem("the grammar of " + grammar.file_name + " has no rule <" + excerpt(edit.target) +
                "> (see 'gi-tool grammar' for the rule names)");
        return;
    }
    const RuleKindInfo& kind = rule_kind_info(target->kind);
    const bool editable_by_op = edit.op == Edit::Op::Replace || (edit.op == Edit::Op::Delete && kind.may_delete) ||
                                (edit.op == Edit::Op::Insert && kind.may_insert);
    if (!editable_by_op) {
        problem(std::string("<") + target->id + "> is " + kind_words(target->kind) + "; it may only be " +
                (target->kind == RuleKind::Pragma ? "deleted or set (<" + target->id + "><pragma_K4>)"
                                                  : "replaced by another of its kind"));
        return;
    }
    if (edit.op == Edit::Op::Delete) return;

    if (const auto unroll = parse_pragma_constant_id(edit.source)) {
        if (target->kind != RuleKind::Pragma || edit.op != Edit::Op::Replace)
            problem("pragma constant <" + excerpt(edit.source) + "> can only replace an unroll pragma slot (<pragma_...>)");
        else if (*unroll < 0 || *unroll > kMaxPragmaUnroll)
            problem("pragma constant <" + excerpt(edit.source) + "> is out of range (pragma_K0 .. pragma_K" +
                    std::to_string(kMaxPragmaUnroll) + ")");
        return;
    }
    const Rule* source = grammar.find_rule(edit.source);
    if (source == nullptr) {
        problem("the grammar of " + grammar.file_name + " has no rule <" + excerpt(edit.source) + ">" +
                (target->kind == RuleKind::Pragma ? " (a pragma slot takes <pragma_K0> .. <pragma_K" +
                                                        std::to_string(kMaxPragmaUnroll) + ">)"
                                                  : ""));
        return;
    }
    if (const std::string why = context.problem(*target, *source); !why.empty()) problem(why);
}

// Names a copy from another function takes from its new surroundings. Another function's local
// of the same name may have another type (a Flux where a Prim was), which no scope fact shows, so
// such a copy may only use names it declares itself.
std::vector<std::string> borrowed_locals(const Rule& source) {
    std::vector<std::string> borrowed;
    for (const std::string& name : source.uses)
        if (!contains(source.declares, name)) borrowed.push_back(name);
    return borrowed;
}

}  // namespace

bool copy_is_scope_safe(const Rule& target, const Rule& source) { return scope_ok(target, source); }

CopyContext::CopyContext(const Grammar& grammar) {
    std::string original;
    for (const Piece& piece : grammar.pieces) original += piece.text;
    std::vector<std::size_t> line_starts{0};
    for (std::size_t i = 0; i < original.size(); ++i)
        if (original[i] == '\n') line_starts.push_back(i + 1);
    auto line_start = [&](int line) {
        return line < 1 ? 0 : static_cast<std::size_t>(line) > line_starts.size() ? original.size()
                                                                                   : line_starts[static_cast<std::size_t>(line - 1)];
    };
    for (const Function& function : grammar.functions) {
        // From the signature's first line (a template line included) to the end of the brace's line.
        const std::size_t begin = line_start(function.first_line);
        const std::size_t end = line_start(function.body_first_line + 1);
        std::set<std::string>& names = signature_names_[function.name];
        for (const std::string& name : identifiers_in(original.substr(begin, end > begin ? end - begin : 0))) names.insert(name);
        for (const KernelParameter& parameter : function.parameters) names.insert(parameter.name);
    }
    for (const Rule& rule : grammar.rules) rule_names_[rule.id] = identifiers_in(rule.text);
}

std::vector<std::string> CopyContext::foreign_names(const Rule& target, const Rule& source) const {
    std::vector<std::string> foreign;
    const auto own = signature_names_.find(source.function);
    if (own == signature_names_.end()) return foreign;
    const auto there = signature_names_.find(target.function);
    const auto cached = rule_names_.find(source.id);
    // A rule from another grammar (tests, hand-made rules) is scanned on the spot.
    const std::set<std::string> scanned = cached == rule_names_.end() ? identifiers_in(source.text) : std::set<std::string>{};
    for (const std::string& name : cached == rule_names_.end() ? scanned : cached->second)
        if (own->second.count(name) && (there == signature_names_.end() || !there->second.count(name)) &&
            !contains(target.in_scope, name))
            foreign.push_back(name);
    return foreign;
}

bool CopyContext::allows(const Rule& target, const Rule& source) const {
    if (!scope_ok(target, source)) return false;
    if (target.function == source.function) return true;
    return !is_return_statement(source) && borrowed_locals(source).empty() && foreign_names(target, source).empty();
}

std::string CopyContext::problem(const Rule& target, const Rule& source) const {
    if (std::string why = scope_problem(target, source); !why.empty()) return why;
    if (target.function == source.function) return {};
    if (is_return_statement(source))
        return "<" + source.id + "> returns from " + source.function + "; a return statement stays in its own function";
    if (const auto borrowed = borrowed_locals(source); !borrowed.empty())
        return "<" + source.id + "> uses " + join(borrowed, ", ") + " of " + source.function + "; in " + target.function +
               " (where <" + target.id + "> stands) a variable of that name may have another type, so copies " +
               "between functions may use only names they declare";
    const std::vector<std::string> foreign = foreign_names(target, source);
    if (foreign.empty()) return {};
    return "<" + source.id + "> mentions " + join(foreign, ", ") + " from the signature of " + source.function +
           ", which " + target.function + " (where <" + target.id + "> stands) does not have";
}

std::vector<GenomeProblem> validate_genome(const Genome& genome, const Grammar& grammar) {
    std::vector<GenomeProblem> problems;
    std::set<std::string> seen;
    for (const GeneSetting& setting : genome.settings) {
        if (!seen.insert(setting.name).second)
            problems.push_back({excerpt(setting.name + "=" + setting.value),
                                "gene " + excerpt(setting.name) + " is set more than once; keep one setting"});
        check_setting(setting, grammar, problems);
    }
    const CopyContext context(grammar);
    // A PTX edit names instructions of the compiled variant, which no grammar knows; parsing
    // checked its form, and applying it to the PTX checks the rest (ptx/ptx_edit.hpp).
    for (const Edit& edit : genome.edits)
        if (!is_ptx_edit(edit)) check_edit(edit, grammar, context, problems);
    return problems;
}

void require_valid_genome(const Genome& genome, const Grammar& grammar, const std::string& context) {
    const auto problems = validate_genome(genome, grammar);
    if (problems.empty()) return;
    std::string message = context + ": the genome does not fit the kernel " + grammar.source_path + " (" +
                          std::to_string(problems.size()) + (problems.size() == 1 ? " problem" : " problems") +
                          "):";
    for (const GenomeProblem& p : problems) message += "\n  " + p.item + ": " + p.message;
    message += "\n(was the kernel edited since the genome was made? regenerate it, or remove these items)";
    throw Error(message);
}

}  // namespace gi
