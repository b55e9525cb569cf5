#include "variant/apply.hpp"

#include <regex>

#include "util/error.hpp"
#include "util/text_rule.hpp"
#include "variant/transform_apply.hpp"

namespace gi {
namespace {

// What the edits did to one rule slot.
struct SlotState {
    bool deleted = false;
    std::optional<std::string> replacement;  // the text that now fills the slot
    std::vector<std::string> inserted;       // copies placed before the slot, in edit order
    bool changed() const { return deleted || replacement.has_value(); }
};

const Rule& rule_or_throw(const Grammar& grammar, const std::string& id, const std::string& edit_text) {
    const Rule* rule = grammar.find_rule(id);
    if (rule == nullptr)
        throw Error("genome edit " + edit_text + ": the grammar of " + grammar.source_path + " has no rule <" + id +
                    "> (validate the genome against this kernel first)");
    return *rule;
}

// The text a Replace edit copies into the slot: a pragma constant's text or a rule's original text.
std::string copied_text(const Grammar& grammar, const Edit& edit) {
    if (const auto unroll = parse_pragma_constant_id(edit.source)) {
        const Rule& target = rule_or_throw(grammar, edit.target, edit_to_text(edit));
        if (target.kind != RuleKind::Pragma)
            throw Error("genome edit " + edit_to_text(edit) + ": a pragma constant can only replace a pragma slot");
        return pragma_constant_text(*unroll);
    }
    return rule_or_throw(grammar, edit.source, edit_to_text(edit)).text;
}

std::vector<SlotState> apply_edits(const Genome& genome, const Grammar& grammar, std::vector<std::string>& skipped) {
    std::vector<SlotState> slots(grammar.rules.size());
    for (const Edit& edit : genome.edits) {
        if (is_ptx_edit(edit)) continue;  // applied to the compiled PTX, after the source (ptx/ptx_edit.hpp)
        const std::string text = edit_to_text(edit);
        rule_or_throw(grammar, edit.target, text);
        SlotState& slot = slots[static_cast<std::size_t>(grammar.rule_index(edit.target))];
        // The copy is always the source's original text, so look it up even when the edit is skipped:
        // a genome naming a missing rule is an error whatever its position.
        const std::string copy = edit.op == Edit::Op::Delete ? std::string() : copied_text(grammar, edit);
        if (edit.op == Edit::Op::Insert) {
            // The place before a statement survives its deletion or replacement (as in the seeds).
            slot.inserted.push_back(copy);
            continue;
        }
        if (slot.changed()) {
            skipped.push_back(text);
            continue;
        }
        if (edit.op == Edit::Op::Delete)
            slot.deleted = true;
        else
            slot.replacement = copy;
    }
    return slots;
}

// Leading whitespace of the line each rule slot starts on, from the original file.
std::vector<std::string> slot_indentation(const Grammar& grammar) {
    std::vector<std::string> indentation(grammar.rules.size());
    std::string line_so_far;  // the current line's text up to here
    auto leading_space = [](const std::string& line) {
        return line.substr(0, line.find_first_not_of(" \t"));
    };
    for (const Piece& piece : grammar.pieces) {
        std::string text = piece.text;
        if (piece.kind == Piece::Kind::RuleSlot) {
            indentation.at(static_cast<std::size_t>(piece.index)) = leading_space(line_so_far);
            text = grammar.rules.at(static_cast<std::size_t>(piece.index)).text;
        }
        const std::size_t newline = text.rfind('\n');
        if (newline == std::string::npos)
            line_so_far += text;
        else
            line_so_far = text.substr(newline + 1);
    }
    return indentation;
}

std::string emit_rule_slot(const Piece& piece, const Rule& rule, const SlotState& slot, const std::string& indent) {
    std::string body = rule.text;
    if (slot.deleted) {
        // An empty statement keeps "if (c) x;" an if with a body instead of swallowing the next line.
        body = rule.kind == RuleKind::Statement && rule.braceless_body ? ";" : "";
    } else if (slot.replacement) {
        body = *slot.replacement;
        // A pragma slot that was empty in the source has no line of its own yet.
        if (rule.kind == RuleKind::Pragma && rule.text.empty() && !body.empty()) body += "\n" + piece.extra;
    }
    if (slot.inserted.empty()) return body;
    std::string text;
    for (const std::string& copy : slot.inserted) text += copy + "\n" + indent;
    // The sole body of an if/else/for gains braces, so the copies stay inside it and an "else"
    // after it still has its "if".
    if (rule.kind == RuleKind::Statement && rule.braceless_body) return "{ " + text + body + " }";
    return text + body;
}

bool defines_as_zero(const std::string& line, const std::string& name) {
    const std::regex pattern("^\\s*#\\s*define\\s+" + name + "\\s+0\\s*(//.*)?$");
    return std::regex_search(line, pattern);
}

std::string emit_gene_slot(const Piece& piece, const Gene& gene, const std::string& value) {
    if (value == gene.default_value) return piece.text;
    switch (gene.kind) {
        case GeneKind::Param: return piece.extra + value;
        case GeneKind::Guard:
            if (piece.text.empty()) return value == "1" ? "#define " + gene.name + " 1\n" : "";
            if (value == "1") return "#define " + gene.name + " 1";
            return defines_as_zero(piece.text, gene.name) ? "#define " + gene.name + " 0" : "";
        // The slot's own spelling: " __restrict__ " where the parameter's name follows the '*' at once.
        case GeneKind::Restrict: return value == "1" ? (piece.extra.empty() ? " __restrict__" : piece.extra) : "";
        case GeneKind::Volatile: return value == "1" ? "volatile " : "";
        case GeneKind::Const: return value == "1" ? "const " : "";
        case GeneKind::LaunchBounds:
            if (value == "off") return "";
            if (value == "on") return "__launch_bounds__(" + gene.launch_threads + ") ";
            return "__launch_bounds__(" + gene.launch_threads + ", " + value + ") ";
        case GeneKind::Flag: return piece.text;  // flags act on the command line, not the source
        // Transformations have no slots: they rewrite a site after the edits (transform_apply).
        case GeneKind::Unroll:
        case GeneKind::Hoist:
        case GeneKind::Unguard:
        case GeneKind::Vectorize:
        case GeneKind::WarpReduce:
        case GeneKind::Coarsen:
        case GeneKind::Stage: return piece.text;
    }
    return piece.text;
}

// "-Xptxas -dlcm=ca" is two argv words for the compiler.
void append_words(const std::string& option, std::vector<std::string>& out) {
    std::size_t pos = 0;
    while (pos < option.size()) {
        const std::size_t start = option.find_first_not_of(" \t", pos);
        if (start == std::string::npos) break;
        const std::size_t end = option.find_first_of(" \t", start);
        out.push_back(option.substr(start, end == std::string::npos ? std::string::npos : end - start));
        pos = end;
    }
}

std::vector<std::string> flag_options(const Genome& genome, const Grammar& grammar) {
    std::vector<std::string> options;
    for (const Gene& gene : grammar.genes) {
        if (gene.kind != GeneKind::Flag) continue;
        const std::string value = setting_or(genome, gene.name, gene.default_value);
        const std::size_t hole = gene.flag_template.find("{}");
        if (hole == std::string::npos) {
            // On/off flag; a grammar that leaves the template empty means the option named like the gene.
            if (value == "1") append_words(gene.flag_template.empty() ? "-" + gene.name : gene.flag_template, options);
        } else if (value != "off") {
            std::string option = gene.flag_template;
            option.replace(hole, 2, value);
            append_words(option, options);
        }
    }
    return options;
}

void check_settings(const Genome& genome, const Grammar& grammar) {
    for (const GeneSetting& setting : genome.settings)
        if (grammar.find_gene(setting.name) == nullptr)
            throw Error("genome setting " + setting.name + "=" + setting.value + ": the kernel " +
                        grammar.source_path + " has no gene " + setting.name +
                        " (validate the genome against this kernel first)");
}

// Each piece's text in the variant, with the piece's text in the original beside it; then the
// transformation genes applied over them (variant/transform_apply.hpp).
std::vector<TextSegment> emit_pieces(const Genome& genome, const Grammar& grammar, std::vector<std::string>& skipped) {
    check_settings(genome, grammar);
    const std::vector<SlotState> slots = apply_edits(genome, grammar, skipped);
    const std::vector<std::string> indentation =
        genome.edits.empty() ? std::vector<std::string>(grammar.rules.size()) : slot_indentation(grammar);
    std::vector<TextSegment> out;
    out.reserve(grammar.pieces.size());
    std::size_t offset = 0;
    for (const Piece& piece : grammar.pieces) {
        TextSegment emitted{offset, piece.text, piece.text, piece.line};
        if (piece.kind == Piece::Kind::RuleSlot) {
            const auto index = static_cast<std::size_t>(piece.index);
            const Rule& rule = grammar.rules.at(index);
            emitted.original = rule.text;
            emitted.text = emit_rule_slot(piece, rule, slots.at(index), indentation.at(index));
        } else if (piece.kind == Piece::Kind::GeneSlot) {
            const Gene& gene = grammar.genes.at(static_cast<std::size_t>(piece.index));
            emitted.text = emit_gene_slot(piece, gene, setting_or(genome, gene.name, gene.default_value));
        }
        offset += emitted.original.size();
        out.push_back(std::move(emitted));
    }
    apply_transforms(genome, grammar, out, skipped);
    return out;
}

}  // namespace

std::string headed(const std::string& first_line, const std::string& text) {
    static const std::string kByteOrderMark = "\xEF\xBB\xBF";
    if (text.rfind(kByteOrderMark, 0) == 0) return kByteOrderMark + first_line + "\n" + text.substr(kByteOrderMark.size());
    return first_line + "\n" + text;
}

AppliedVariant apply_genome(const Genome& genome, const Grammar& grammar) {
    AppliedVariant variant;
    const std::vector<TextSegment> pieces = emit_pieces(genome, grammar, variant.skipped_edits);
    std::string text;
    for (const TextSegment& piece : pieces) text += piece.text;
    variant.source = headed("// gi-optimize variant: " + comment_text(genome_to_text(genome)), text);
    variant.compile_options = flag_options(genome, grammar);
    return variant;
}

std::vector<SourceChange> variant_changes(const Genome& genome, const Grammar& grammar) {
    std::vector<std::string> skipped;
    std::vector<SourceChange> changes;
    for (const TextSegment& piece : emit_pieces(genome, grammar, skipped))
        if (piece.text != piece.original) changes.push_back({piece.begin, piece.end(), piece.text, piece.line});
    return changes;
}

MacroTable macros_for(const Genome& genome, const Grammar& grammar) {
    MacroTable macros = grammar.file_macros;
    for (const Gene& gene : grammar.genes) {
        const std::string value = setting_or(genome, gene.name, gene.default_value);
        if (gene.kind == GeneKind::Param) {
            macros[gene.name] = value;
        } else if (gene.kind == GeneKind::Guard && value != gene.default_value) {
            // Mirrors emit_gene_slot: "1" defines the macro as 1, "0" removes it unless the source
            // itself wrote "#define NAME 0".
            if (value == "1") {
                macros[gene.name] = "1";
            } else {
                bool keeps_zero = false;
                for (const Piece& piece : grammar.pieces)
                    if (piece.kind == Piece::Kind::GeneSlot && grammar.genes.at(static_cast<std::size_t>(piece.index)).name == gene.name)
                        keeps_zero = keeps_zero || defines_as_zero(piece.text, gene.name);
                if (keeps_zero)
                    macros[gene.name] = "0";
                else
                    macros.erase(gene.name);
            }
        }
    }
    return macros;
}

}  // namespace gi
