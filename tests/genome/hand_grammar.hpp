#pragma once
// Grammars written by hand for the genome, variant and compile tests, so those stages are tested
// against exactly the pieces and scope facts they are given, independent of the grammar builder.
#include <string>
#include <utility>
#include <vector>

#include "grammar/grammar.hpp"

namespace gi::testing {

struct RuleFacts {
    std::vector<std::string> uses;
    std::vector<std::string> declares;
    std::vector<std::string> in_scope;
    int loop_depth = 0;
    bool has_break_or_continue = false;
    bool braceless_body = false;
    std::vector<int> conditions;
    std::string extra;  // the slot piece's extra (a pragma slot's indentation)
};

// Appends pieces in file order, numbering lines as the text goes, and names rules like the grammar
// stage does ("_k.cu_7", "IF_k.cu_7", a second slot of a kind on one line "_k.cu_7.2").
class GrammarBuilder {
public:
    explicit GrammarBuilder(std::string file_name = "k.cu") {
        grammar_.file_name = file_name;
        grammar_.source_path = "/src/" + file_name;
    }

    GrammarBuilder& text(const std::string& literal) {
        add_piece(Piece::Kind::Literal, literal, -1, "");
        return *this;
    }

    GrammarBuilder& rule(RuleKind kind, const std::string& text, RuleFacts facts = {}) {
        Rule rule;
        rule.kind = kind;
        rule.text = text;
        rule.line = line_;
        rule.function = "k";
        rule.uses = facts.uses;
        rule.declares = facts.declares;
        rule.in_scope = facts.in_scope;
        rule.loop_depth = facts.loop_depth;
        rule.has_break_or_continue = facts.has_break_or_continue;
        rule.braceless_body = facts.braceless_body;
        rule.is_barrier = text.find("__syncthreads") != std::string::npos;
        rule.conditions = facts.conditions;
        std::string id = std::string(rule_kind_prefix(kind)) + grammar_.file_name + "_" + std::to_string(line_);
        int same = 1;
        for (const Rule& other : grammar_.rules)
            if (other.line == line_ && other.kind == kind) ++same;
        if (same > 1) id += "." + std::to_string(same);
        rule.id = id;
        grammar_.rules.push_back(rule);
        add_piece(Piece::Kind::RuleSlot, text, static_cast<int>(grammar_.rules.size()) - 1, facts.extra);
        return *this;
    }

    GrammarBuilder& gene(Gene gene, const std::string& original, const std::string& extra = "") {
        gene.line = line_;
        grammar_.genes.push_back(gene);
        add_piece(Piece::Kind::GeneSlot, original, static_cast<int>(grammar_.genes.size()) - 1, extra);
        return *this;
    }

    // A gene with no place in the source (compile flags).
    GrammarBuilder& flag(Gene gene) {
        grammar_.genes.push_back(std::move(gene));
        return *this;
    }

    GrammarBuilder& condition(const std::string& expression) {
        grammar_.conditions.push_back({expression, line_});
        return *this;
    }

    GrammarBuilder& macro(const std::string& name, const std::string& value) {
        grammar_.file_macros[name] = value;
        return *this;
    }

    // The file the pieces reproduce with every slot at its original value.
    std::string original() const { return original_; }
    Grammar build() const { return grammar_; }

private:
    void add_piece(Piece::Kind kind, const std::string& text, int index, const std::string& extra) {
        Piece piece;
        piece.kind = kind;
        piece.text = text;
        piece.index = index;
        piece.extra = extra;
        piece.line = line_;
        grammar_.pieces.push_back(piece);
        original_ += text;
        for (char c : text) line_ += c == '\n';
    }

    Grammar grammar_;
    std::string original_;
    int line_ = 1;
};

inline Gene make_gene(const std::string& name, GeneKind kind, std::vector<std::string> values,
                      const std::string& default_value) {
    Gene gene;
    gene.name = name;
    gene.kind = kind;
    gene.values = std::move(values);
    gene.default_value = default_value;
    return gene;
}

// A small kernel with one of everything: params, a guard, header genes, a braceless if, a loop with
// an empty pragma slot, a barrier, a loop-only 'continue', and a statement in an #if region.
//
//  1 #define BLOCK_W 64
//  2 #define USE_SHARED 1
//  3 __global__ void k(float* __restrict__ out, int n) {
//  4     __shared__ float tile[BLOCK_W];
//  5     int i = threadIdx.x;
//  6     if (i < n) out[i] = 0;
//  7     for (int j = 0; j < n; j++) {
//  8         tile[i] += out[j];
//  9         if (j > 4) continue;
// 10         __syncthreads();
// 11     }
// 12 #if USE_SHARED
// 13     out[i] = tile[i];
// 14 #endif
// 15 }
inline GrammarBuilder sample_kernel() {
    GrammarBuilder b;
    Gene block = make_gene("BLOCK_W", GeneKind::Param, {"32", "64", "128"}, "64");
    block.numeric = true;
    Gene guard = make_gene("USE_SHARED", GeneKind::Guard, {"0", "1"}, "1");
    Gene restrict_gene = make_gene("restrict", GeneKind::Restrict, {"0", "1"}, "1");
    Gene volatile_gene = make_gene("volatile", GeneKind::Volatile, {"0", "1"}, "0");
    Gene const_gene = make_gene("const_n", GeneKind::Const, {"0", "1"}, "0");
    Gene bounds = make_gene("launch_bounds", GeneKind::LaunchBounds, {"off", "on", "1", "2", "3", "4", "5"}, "off");
    bounds.launch_threads = "BLOCK_W";
    Gene fast = make_gene("use_fast_math", GeneKind::Flag, {"0", "1"}, "0");
    fast.flag_template = "-use_fast_math";
    Gene dlcm = make_gene("dlcm", GeneKind::Flag, {"off", "ca", "cg"}, "off");
    dlcm.flag_template = "-Xptxas -dlcm={}";
    const std::vector<std::string> top = {"i", "n", "out", "tile"};
    const std::vector<std::string> loop = {"i", "j", "n", "out", "tile"};
    b.macro("BLOCK_W", "64").macro("USE_SHARED", "1");
    b.gene(block, "#define BLOCK_W 64", "#define BLOCK_W ").text("\n");
    b.gene(guard, "#define USE_SHARED 1", "#define USE_SHARED ").text("\n");
    b.text("__global__ void ").gene(bounds, "").text("k(float*").gene(restrict_gene, " __restrict__");
    b.text(" out, ").gene(const_gene, "").text("int n) {\n    ");
    b.gene(volatile_gene, "").text("__shared__ float tile[BLOCK_W];\n");
    b.text("    int i = threadIdx.x;\n");
    b.text("    if (").rule(RuleKind::IfCondition, "i < n", {{"i", "n"}, {}, top});
    b.text(") ").rule(RuleKind::Statement, "out[i] = 0;", {{"out", "i"}, {}, top, 0, false, true}).text("\n");
    b.text("    ").rule(RuleKind::Pragma, "", {{}, {}, top, 0, false, false, {}, "    "});
    b.text("for (").rule(RuleKind::ForInit, "int j = 0", {{"j"}, {"j"}, top});
    b.text("; ").rule(RuleKind::ForCond, "j < n", {{"j", "n"}, {}, loop, 1});
    b.text("; ").rule(RuleKind::ForStep, "j++", {{"j"}, {}, loop, 1}).text(") {\n");
    b.text("        ").rule(RuleKind::Statement, "tile[i] += out[j];", {{"tile", "i", "out", "j"}, {}, loop, 1});
    b.text("\n        if (").rule(RuleKind::IfCondition, "j > 4", {{"j"}, {}, loop, 1});
    b.text(") ").rule(RuleKind::Statement, "continue;", {{}, {}, loop, 1, true, true}).text("\n");
    b.text("        ").rule(RuleKind::Statement, "__syncthreads();", {{}, {}, loop, 1}).text("\n    }\n");
    b.condition("USE_SHARED");
    b.text("#if USE_SHARED\n    ").rule(RuleKind::Statement, "out[i] = tile[i];", {{"out", "i", "tile"}, {}, top, 0, false, false, {0}});
    b.text("\n#endif\n}\n");
    b.flag(fast).flag(dlcm);
    return b;
}

}  // namespace gi::testing
