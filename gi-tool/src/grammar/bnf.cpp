#include "grammar/bnf.hpp"

#include <map>
#include <sstream>

namespace gi {
namespace {

std::string quote(const std::string& text) {
    std::string out = "\"";
    for (char c : text) {
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\t': out += "\\t"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
        }
    }
    return out + "\"";
}

std::string_view gene_kind_name(GeneKind kind) {
    switch (kind) {
    case GeneKind::Param: return "parameter";
    case GeneKind::Guard: return "#if guard";
    case GeneKind::Flag: return "compile flag";
    case GeneKind::Restrict: return "__restrict__ on pointer parameters";
    case GeneKind::Volatile: return "volatile __shared__";
    case GeneKind::Const: return "const scalar parameter";
    case GeneKind::LaunchBounds: return "__launch_bounds__";
    case GeneKind::Unroll: return "loop unrolled by hand";
    case GeneKind::Hoist: return "loop-invariant declaration hoisted";
    case GeneKind::Unguard: return "bounds check dropped";
    case GeneKind::Vectorize: return "loads through float2/float4";
    case GeneKind::WarpReduce: return "reduction finished by warp shuffles";
    case GeneKind::Coarsen: return "threads coarsened, the grid divided";
    case GeneKind::Stage: return "re-read array staged through shared memory";
    }
    return "gene";
}

std::string line_id(const Grammar& grammar, int line) { return "<" + grammar.file_name + "_" + std::to_string(line) + ">"; }

}  // namespace

std::string grammar_to_bnf(const Grammar& grammar) {
    std::ostringstream out;
    out << "# gi-optimize grammar (grammar version " << kGrammarVersion << ") of " << grammar.source_path << "\n";
    out << "# source sha256 " << grammar.source_hash << "\n";
    for (const Function& f : grammar.functions)
        out << "# " << (f.is_global ? "__global__ " : "__device__ ") << f.name << ": lines " << f.first_line << "-"
            << f.last_line << "\n";
    out << "# Rules starting";
    for (const RuleKindInfo& kind : rule_kinds()) out << " <" << kind.prefix;
    out << " may be replaced by rules of the same kind;\n"
           "# <_ rules may also be deleted or copied before another <_ rule. Other lines are fixed.\n";

    if (!grammar.genes.empty()) out << "\n# configuration genes: value | value ... (default)\n";
    for (const Gene& gene : grammar.genes) {
        out << "<" << gene.name << "> ::=";
        for (std::size_t i = 0; i < gene.values.size(); ++i) out << (i ? " | " : " ") << quote(gene.values[i]);
        out << "    # " << gene_kind_name(gene.kind) << ", default " << quote(gene.default_value);
        if (gene.line > 0) out << ", line " << gene.line;
        if (!gene.flag_template.empty()) out << ", option " << quote(gene.flag_template);
        if (!gene.launch_threads.empty()) out << ", threads " << gene.launch_threads;
        out << "\n";
    }

    // Each line of the selected functions: its literal text with the slots that start on it.
    std::map<int, std::string> lines;
    auto in_functions = [&](int line) {
        for (const Function& f : grammar.functions)
            if (line >= f.first_line && line <= f.last_line) return true;
        return false;
    };
    int line = 1;
    for (const Piece& piece : grammar.pieces) {
        if (piece.kind == Piece::Kind::Literal) {
            std::size_t start = 0;
            while (start < piece.text.size()) {
                const std::size_t newline = piece.text.find('\n', start);
                const std::size_t stop = newline == std::string::npos ? piece.text.size() : newline + 1;
                if (in_functions(line)) {
                    std::string& rule = lines[line];
                    rule += (rule.empty() ? "" : " ") + quote(piece.text.substr(start, stop - start));
                }
                if (newline != std::string::npos) ++line;
                start = stop;
            }
            continue;
        }
        const std::string name = piece.kind == Piece::Kind::RuleSlot
                                     ? rule_name(grammar.rules[static_cast<std::size_t>(piece.index)])
                                     : "<" + grammar.genes[static_cast<std::size_t>(piece.index)].name + ">";
        if (in_functions(line)) {
            std::string& rule = lines[line];
            rule += (rule.empty() ? "" : " ") + name;
        }
        for (char c : piece.text)
            if (c == '\n') ++line;
    }
    out << "\n# the kernel, line by line\n";
    for (const auto& [number, body] : lines) out << line_id(grammar, number) << " ::= " << body << "\n";

    out << "\n# editable rules, with their original text\n";
    for (const Rule& rule : grammar.rules) {
        out << rule_name(rule) << " ::= " << quote(rule.text);
        std::string facts;
        if (!rule.uses.empty()) {
            facts += " uses";
            for (const std::string& u : rule.uses) facts += " " + u;
        }
        if (!rule.declares.empty()) {
            facts += " declares";
            for (const std::string& d : rule.declares) facts += " " + d;
        }
        if (rule.loop_depth > 0) facts += " loop " + std::to_string(rule.loop_depth);
        if (rule.is_barrier) facts += " barrier";
        if (rule.braceless_body) facts += " braceless";
        if (!rule.conditions.empty()) {
            facts += " #if";
            for (int c : rule.conditions) facts += " [" + grammar.conditions[static_cast<std::size_t>(c)].expression + "]";
        }
        if (!facts.empty()) out << "    #" << facts;
        out << "\n";
    }

    out << "\n# unroll pragma constants\n";
    for (int k = 0; k <= kMaxPragmaUnroll; ++k)
        out << "<" << pragma_constant_id(k) << "> ::= " << quote(pragma_constant_text(k)) << "\n";

    if (!grammar.notes.empty()) {
        out << "\n# notes\n";
        for (const std::string& note : grammar.notes) out << "# " << note << "\n";
    }
    return out.str();
}

}  // namespace gi
