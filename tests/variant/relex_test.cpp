// Every gene value and every kind of edit, applied to kernels written as people write them, must
// print tokens that lex as written: text the printer inserts may not glue onto its neighbours
// (issue 16: the restrict gene turned `float *C` into `float * __restrict__C`, one identifier, and
// a tenth of a third-party kernel's variants failed to compile). Checked on every gene slot of the
// project's kernels and of the corpus, and on a delete, replace and insert of every statement.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "genome/genome.hpp"
#include "genome/validate.hpp"
#include "grammar/build_grammar.hpp"
#include "grammar/scan.hpp"
#include "registered_kernels.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;


// The identifiers of `text` that are not in `vocabulary`: words the printer made by gluing inserted
// text onto a neighbour ("__restrict__C"), since every word a variant holds comes from the kernel
// or from what a gene writes.
std::vector<std::string> new_words(const std::string& text, const std::set<std::string>& vocabulary) {
    const grammar_detail::Scan scan = grammar_detail::scan_source(make_source_file("relex.cu", text));
    std::vector<std::string> out;
    for (const auto& t : scan.tokens)
        if (t.identifier() && !vocabulary.count(std::string(t.text))) out.emplace_back(t.text);
    return out;
}

// The original's words and those genes write.
std::set<std::string> vocabulary_of(const std::string& original, const Grammar& grammar) {
    // Transformation genes write an if/else around unrolled copies and a check's constant.
    std::set<std::string> words{"__restrict__", "volatile", "const", "__launch_bounds__", "if", "else", "true", "false"};
    const grammar_detail::Scan scan = grammar_detail::scan_source(make_source_file("relex.cu", original));
    for (const auto& t : scan.tokens)
        if (t.identifier()) words.emplace(t.text);
    for (const Gene& gene : grammar.genes) {
        for (const std::string& value : gene.values) words.insert(value);
        // The warp's reduction: its register, named after the loop's line, and the shuffle.
        if (gene.kind == GeneKind::WarpReduce)
            words.insert({"auto", "__shfl_down_sync", "gi_shfl" + std::to_string(gene.line)});
        // Coarsening's loop counter, named after the kernel's first line, and its loop.
        if (gene.kind == GeneKind::Coarsen) words.insert({"for", "int", "gi_coarsen" + std::to_string(gene.line)});
        // Vector loads: the alignment check, one vector a pointer (named after the loop's line and
        // the pointer) and its lanes.
        if (gene.kind == GeneKind::Vectorize) {
            words.insert({"reinterpret_cast", "unsigned", "long", "float2", "float4", "x", "y", "z", "w"});
            for (const VectorRead& read : gene.site.reads) words.insert("gi_vec" + std::to_string(gene.line) + "_" + read.pointer);
        }
        // Staging's tile, its flag, base, load counter and address, and the load's words.
        if (gene.kind == GeneKind::Stage) {
            const std::string tile = "gi_stage" + std::to_string(gene.line);
            words.insert({tile, tile + "_on", tile + "_base", tile + "_t", tile + "_g", "__shared__", "bool", "long", "int",
                          "for", "blockDim", "blockIdx", "threadIdx", "x", "y", "z", "__syncthreads", gene.site.stage.element});
        }
    }
    return words;
}

std::string glue_problem(const std::string& original, const std::string& variant, const Grammar& grammar) {
    std::string glued;
    for (const std::string& word : new_words(variant, vocabulary_of(original, grammar))) glued += " " + word;
    return glued.empty() ? "" : "words the original does not have:" + glued;
}

std::string without_banner(const std::string& variant) {
    return variant.rfind("// gi-optimize variant:", 0) == 0 ? variant.substr(variant.find('\n') + 1) : variant;
}

struct Kernel {
    std::string name;
    SourceFile source;
    GrammarOptions options;
};

std::vector<Kernel> kernels() {
    std::vector<Kernel> out;
    for (const test::KernelFile& k : test::registered_kernels()) {
        GrammarOptions options;
        options.functions = {k.function};
        out.push_back({k.path.filename().string(), read_source_file(k.path.string()), options});
    }
    for (const auto& [file, function] : std::vector<std::pair<std::string, std::string>>{
             {"row_filter.cu", "rowFilter"}, {"struct_pointers.cu", "axpyStruct"},
             {"pointer_array.cu", "sumRows"}, {"histogram.cu", "weightedHistogram"}}) {
        GrammarOptions options;
        options.functions = {function};
        out.push_back({file, read_source_file((fs::path(GI_SOURCE_DIR) / "tests/corpus" / file).string()), options});
    }
    // Pointers written with the star against the name, as in many samples.
    GrammarOptions options;
    options.functions = {"matrixMul"};
    out.push_back({"glued.cu",
                   make_source_file("glued.cu", "__global__ void matrixMul(float *C, float *A, const float *B, int n) {\n"
                                                "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                                                "    if (i < n) C[i] = A[i] * B[i];\n}\n"),
                   options});
    return out;
}

TEST(Relex, EveryGeneValuePrintsSeparateTokens) {
    int checked = 0;
    for (const Kernel& k : kernels()) {
        const Grammar grammar = build_grammar(k.source, k.options);
        const std::string original = without_banner(apply_genome(Genome{}, grammar).source);
        for (const Gene& gene : grammar.genes) {
            if (gene.kind == GeneKind::Flag) continue;  // compile options, not text
            for (const std::string& value : gene.values) {
                if (value == gene.default_value) continue;
                Genome genome;
                set_gene(genome, gene.name, value);
                const std::string variant = without_banner(apply_genome(genome, grammar).source);
                EXPECT_EQ(glue_problem(original, variant, grammar), "") << k.name << ": " << gene.name << "=" << value;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 30);
}

TEST(Relex, EveryEditKindPrintsSeparateTokens) {
    int checked = 0;
    for (const Kernel& k : kernels()) {
        const Grammar grammar = build_grammar(k.source, k.options);
        const std::string original = without_banner(apply_genome(Genome{}, grammar).source);
        for (std::size_t i = 0; i < grammar.rules.size(); ++i) {
            const Rule& target = grammar.rules[i];
            // Another rule of the same kind to copy in (the next one, wrapping around).
            const Rule* other = nullptr;
            for (std::size_t j = 1; j < grammar.rules.size() && !other; ++j) {
                const Rule& candidate = grammar.rules[(i + j) % grammar.rules.size()];
                if (candidate.kind == target.kind && candidate.kind != RuleKind::Pragma) other = &candidate;
            }
            std::vector<std::string> edits{"<" + target.id + ">"};
            if (other) {
                edits.push_back("<" + target.id + "><" + other->id + ">");
                edits.push_back("<" + target.id + ">+<" + other->id + ">");
            }
            for (const std::string& text : edits) {
                const Genome genome = parse_genome(text);
                if (!validate_genome(genome, grammar).empty()) continue;  // not an edit this rule takes
                const std::string variant = without_banner(apply_genome(genome, grammar).source);
                EXPECT_EQ(glue_problem(original, variant, grammar), "") << k.name << ": " << text;
                ++checked;
            }
        }
    }
    EXPECT_GT(checked, 200);
}

TEST(Relex, TheRestrictGeneKeepsAPointersNameApart) {
    GrammarOptions options;
    options.functions = {"matrixMul"};
    const Grammar grammar = build_grammar(make_source_file("glued.cu", "__global__ void matrixMul(float *C, float *A) { C[0] = A[0]; }\n"),
                                          options);
    Genome genome;
    set_gene(genome, "restrict", "1");
    const std::string variant = apply_genome(genome, grammar).source;
    EXPECT_NE(variant.find("float * __restrict__ C, float * __restrict__ A"), std::string::npos) << variant;
}

}  // namespace
}  // namespace gi
