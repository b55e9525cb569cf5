// Transformation genes (issue 46): the text each writes on small kernels, exactly; that they compose
// with edits (an unrolled body copies the edited statements, an edit that breaks the premise turns
// the transformation off and says so); that variant_changes and compose carry them; and that a
// genome without them gives the same text as before they existed.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "variant/apply.hpp"
#include "variant/compose.hpp"

namespace gi {
namespace {

const char* const kDotKernel =
    "__global__ void dot(const float* a, float* out, int n, int m) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i >= n) return;\n"
    "    float acc = 0;\n"
    "    for (int j = 0; j < m; ++j) {\n"
    "        const float w = a[i] * 2.0f;\n"
    "        acc += w * a[j];\n"
    "    }\n"
    "    out[i] = acc;\n"
    "}\n";

std::string transformed_text(const Grammar& grammar, const std::string& genome) {
    const std::string source = apply_genome(parse_genome(genome), grammar).source;
    return source.substr(source.find('\n') + 1);
}

TEST(TransformApply, TheGrammarOffersOneGeneASite) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    const Gene* unroll = grammar.find_gene("unroll_k.cu_5");
    const Gene* hoist = grammar.find_gene("hoist_k.cu_6");
    const Gene* unguard = grammar.find_gene("unguard_k.cu_3");
    ASSERT_TRUE(unroll && hoist && unguard);
    EXPECT_EQ(unroll->kind, GeneKind::Unroll);
    EXPECT_EQ(unroll->values, (std::vector<std::string>{"1", "2", "4", "8"}));
    EXPECT_EQ(unroll->default_value, "1");
    EXPECT_TRUE(unroll->numeric);
    EXPECT_EQ(hoist->values, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(unguard->default_value, "0");
    test::expect_reproduces(grammar, kDotKernel);
}

TEST(TransformApply, UnrollCopiesTheBodyWithTheRemainderInTheLoop) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    EXPECT_EQ(transformed_text(grammar, "unroll_k.cu_5=2"),
              "__global__ void dot(const float* a, float* out, int n, int m) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i >= n) return;\n"
              "    float acc = 0;\n"
              "    for (int j = 0; j < m; ++j) { if (j + 1 < (m)) {\n"
              "{\n"
              "        const float w = a[i] * 2.0f;\n"
              "        acc += w * a[j];\n"
              "    } ++j;\n"
              "{\n"
              "        const float w = a[i] * 2.0f;\n"
              "        acc += w * a[j];\n"
              "    }\n"
              "} else {\n"
              "        const float w = a[i] * 2.0f;\n"
              "        acc += w * a[j];\n"
              "    } }\n"
              "    out[i] = acc;\n"
              "}\n");
}

TEST(TransformApply, UnrollCountsAStrideAheadAndKeepsABracelessBodyApart) {
    const std::string kernel =
        "__global__ void s(float* x, int n) {\n"
        "    for (int i = threadIdx.x; i <= n; i += blockDim.x * gridDim.x)\n"
        "        x[i] *= 2;\n"
        "    for (int k = 0; k < n; k += 2) x[k] = 0;\n"
        "}\n";
    const Grammar grammar = test::grammar_of(kernel);
    EXPECT_EQ(transformed_text(grammar, "unroll_k.cu_2=4"),
              "__global__ void s(float* x, int n) {\n"
              "    for (int i = threadIdx.x; i <= n; i += blockDim.x * gridDim.x)\n"
              "        { if (i + 3 * (blockDim.x * gridDim.x) <= (n)) {\n"
              "{\nx[i] *= 2;\n} i += blockDim.x * gridDim.x;\n"
              "{\nx[i] *= 2;\n} i += blockDim.x * gridDim.x;\n"
              "{\nx[i] *= 2;\n} i += blockDim.x * gridDim.x;\n"
              "{\nx[i] *= 2;\n}\n"
              "} else {\nx[i] *= 2;\n} }\n"
              "    for (int k = 0; k < n; k += 2) x[k] = 0;\n"
              "}\n");
    // A number stride is folded: 3 more iterations of 2 are 6 ahead.
    EXPECT_NE(transformed_text(grammar, "unroll_k.cu_4=4").find("if (k + 6 < (n))"), std::string::npos);
}

TEST(TransformApply, HoistMovesTheDeclarationBeforeTheLoop) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    EXPECT_EQ(transformed_text(grammar, "hoist_k.cu_6=1"),
              "__global__ void dot(const float* a, float* out, int n, int m) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i >= n) return;\n"
              "    float acc = 0;\n"
              "    const float w = a[i] * 2.0f;\n"
              "    for (int j = 0; j < m; ++j) {\n"
              "        \n"
              "        acc += w * a[j];\n"
              "    }\n"
              "    out[i] = acc;\n"
              "}\n");
}

TEST(TransformApply, UnguardDropsTheCheckEitherWay) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    EXPECT_NE(transformed_text(grammar, "unguard_k.cu_3=1").find("    if (false) return;\n"), std::string::npos);
    const Grammar wrapped = test::grammar_of(
        "__global__ void w(float* x, int n) {\n"
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i < n) { x[i] = 1; }\n"
        "}\n");
    EXPECT_EQ(transformed_text(wrapped, "unguard_k.cu_3=1"),
              "__global__ void w(float* x, int n) {\n"
              "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (true) { x[i] = 1; }\n"
              "}\n");
}

TEST(TransformApply, HoistAndUnrollOfOneLoopCompose) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    const std::string both = transformed_text(grammar, "hoist_k.cu_6=1 unroll_k.cu_5=2");
    EXPECT_NE(both.find("    const float w = a[i] * 2.0f;\n    for (int j = 0; j < m; ++j) { if (j + 1 < (m)) {"),
              std::string::npos)
        << both;
    EXPECT_EQ(both.find("const float w", both.find("for (")), std::string::npos) << both;
}

TEST(TransformApply, TheUnrolledBodyIsTheEditedOne) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    // <_k.cu_7> is "acc += w * a[j];": deleted, so no copy holds it.
    const std::string text = transformed_text(grammar, "unroll_k.cu_5=2 <_k.cu_7>");
    EXPECT_EQ(text.find("acc += w"), std::string::npos) << text;
    EXPECT_NE(text.find("if (j + 1 < (m))"), std::string::npos) << text;
}

TEST(TransformApply, AnEditThatBreaksThePremiseTurnsTheTransformationOff) {
    const std::string kernel =
        "__global__ void b(float* x, int n) {\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        x[i] = 0;\n"
        "    }\n"
        "    for (int k = 0; k < n; ++k) {\n"
        "        if (x[k] > 1) break;\n"
        "    }\n"
        "}\n";
    const Grammar grammar = test::grammar_of(kernel);
    ASSERT_TRUE(grammar.find_gene("unroll_k.cu_2"));
    EXPECT_FALSE(grammar.find_gene("unroll_k.cu_5")) << "a body that breaks out is not unrolled";
    // The break copied into the first loop: the unrolled copies would skip the rest of a trip.
    const Rule* brk = test::rule_with_text(grammar, "break;");
    ASSERT_TRUE(brk);
    const Genome genome = parse_genome("unroll_k.cu_2=4 <_k.cu_3>+<" + brk->id + ">");
    EXPECT_TRUE(validate_genome(genome, grammar).empty());
    const AppliedVariant variant = apply_genome(genome, grammar);
    EXPECT_EQ(variant.source.find("if (i + 3"), std::string::npos) << variant.source;
    ASSERT_EQ(variant.skipped_edits.size(), 1u);
    EXPECT_EQ(variant.skipped_edits[0], "unroll_k.cu_2=4 (not applied: its body can leave or skip an iteration ('break'))");
}

TEST(TransformApply, VariantChangesCoverTheRewrittenSiteAndRebuildTheText) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    const Genome genome = parse_genome("hoist_k.cu_6=1 unroll_k.cu_5=4 unguard_k.cu_3=1 restrict=1");
    const std::vector<SourceChange> changes = variant_changes(genome, grammar);
    std::string rebuilt = kDotKernel;
    for (auto change = changes.rbegin(); change != changes.rend(); ++change)
        rebuilt.replace(change->begin, change->end - change->begin, change->text);
    EXPECT_EQ(rebuilt, transformed_text(grammar, genome_to_text(genome)));
    for (std::size_t k = 1; k < changes.size(); ++k) EXPECT_LE(changes[k - 1].end, changes[k].begin);
}

TEST(TransformApply, ComposeKeepsTwoKernelsTransformationsApart) {
    const std::string file = std::string(kDotKernel) +
                             "__global__ void zero(float* x, int n) {\n"
                             "    for (int i = 0; i < n; ++i) x[i] = 0;\n"
                             "}\n";
    GrammarOptions dot_options;
    dot_options.functions = {"dot"};
    GrammarOptions zero_options;
    zero_options.functions = {"zero"};
    const Grammar dot = test::grammar_of(file, dot_options);
    const Grammar zero = test::grammar_of(file, zero_options);
    EXPECT_FALSE(dot.find_gene("unroll_k.cu_12"));
    const Genome dot_genome = parse_genome("unroll_k.cu_5=2");
    const Genome zero_genome = parse_genome("unroll_k.cu_12=2");
    const ComposedVariant composed = compose_variants(
        file, {{"dot", true, genome_to_text(dot_genome), variant_changes(dot_genome, dot), {}, ""},
               {"zero", true, genome_to_text(zero_genome), variant_changes(zero_genome, zero), {}, ""}});
    EXPECT_EQ(composed.used, (std::vector<bool>{true, true}));
    EXPECT_NE(composed.source.find("if (j + 1 < (m))"), std::string::npos);
    EXPECT_NE(composed.source.find("if (i + 1 < (n))"), std::string::npos);
}

TEST(TransformApply, GenomesWithoutThemApplyAsBefore) {
    const Grammar grammar = test::grammar_of(kDotKernel);
    // Edits and header genes alone: the text the variant stage wrote before transformations.
    EXPECT_EQ(transformed_text(grammar, "restrict=1 <_k.cu_7>"),
              "__global__ void dot(const float* __restrict__ a, float* __restrict__ out, int n, int m) {\n"
              "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i >= n) return;\n"
              "    float acc = 0;\n"
              "    for (int j = 0; j < m; ++j) {\n"
              "        const float w = a[i] * 2.0f;\n"
              "        \n"
              "    }\n"
              "    out[i] = acc;\n"
              "}\n");
    // Minimisation knocks a transformation out like any setting.
    const Genome genome = parse_genome("unroll_k.cu_5=4 <_k.cu_7>");
    EXPECT_EQ(genome_items(genome).front(), "unroll_k.cu_5=4");
    EXPECT_EQ(genome_to_text(without_item(genome, 0)), "<_k.cu_7>");
    EXPECT_EQ(genome_to_text(canonical_genome(parse_genome("unroll_k.cu_5=1 hoist_k.cu_6=0"), grammar)), "");
}

TEST(TransformApply, OffTheGrammarOffersNoneAndGenomesWithoutThemApplyTheSame) {
    GrammarOptions off;
    off.transforms = false;
    const Grammar without = test::grammar_of(kDotKernel, off);
    const Grammar with = test::grammar_of(kDotKernel);
    for (const Gene& gene : without.genes) EXPECT_FALSE(is_transform_gene(gene.kind)) << gene.name;
    EXPECT_EQ(without.genes.size() + 3, with.genes.size());
    const Genome genome = parse_genome("restrict=1 <_k.cu_7>");
    EXPECT_EQ(apply_genome(genome, without).source, apply_genome(genome, with).source);
}

}  // namespace
}  // namespace gi
