#include <gtest/gtest.h>

#include "../genome/hand_grammar.hpp"
#include "util/error.hpp"
#include "evaluate/evaluator.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

using testing::sample_kernel;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos) text.replace(pos, from.size(), to);
    return text;
}

class Apply : public ::testing::Test {
protected:
    AppliedVariant apply(const std::string& genome) { return apply_genome(parse_genome(genome), grammar); }
    std::string body(const std::string& genome) {
        const std::string header = "// gi-optimize variant: " + genome_to_text(parse_genome(genome)) + "\n";
        const std::string source = apply(genome).source;
        EXPECT_EQ(source.rfind(header, 0), 0u) << source;
        return source.substr(header.size());
    }
    testing::GrammarBuilder builder = sample_kernel();
    Grammar grammar = builder.build();
    std::string original = builder.original();
};

TEST_F(Apply, EmptyGenomeIsHeaderPlusOriginal) {
    const AppliedVariant v = apply("");
    EXPECT_EQ(v.source, "// gi-optimize variant: \n" + original);
    EXPECT_TRUE(v.compile_options.empty());
    EXPECT_TRUE(v.skipped_edits.empty());
}

TEST_F(Apply, DefaultValuedSettingsKeepTheOriginal) {
    EXPECT_EQ(body("BLOCK_W=64 USE_SHARED=1 restrict=1 volatile=0 const_n=0 launch_bounds=off use_fast_math=0 dlcm=off"),
              original);
}

TEST_F(Apply, HeaderCarriesTheGenome) {
    EXPECT_EQ(apply("BLOCK_W=32 <_k.cu_8>").source.rfind("// gi-optimize variant: BLOCK_W=32 <_k.cu_8>\n", 0), 0u);
}

TEST_F(Apply, DeleteStatement) {
    EXPECT_EQ(body("<_k.cu_8>"), replaced(original, "        tile[i] += out[j];\n", "        \n"));
}

TEST_F(Apply, DeletingABracelessBodyLeavesAnEmptyStatement) {
    EXPECT_EQ(body("<_k.cu_6>"), replaced(original, "if (i < n) out[i] = 0;", "if (i < n) ;"));
}

TEST_F(Apply, ReplaceStatementWithTheOtherRulesOriginalText) {
    EXPECT_EQ(body("<_k.cu_10><_k.cu_8>"), replaced(original, "__syncthreads();", "tile[i] += out[j];"));
}

TEST_F(Apply, InsertCopiesBeforeTheTargetAtItsIndentation) {
    EXPECT_EQ(body("<_k.cu_8>+<_k.cu_10> <_k.cu_8>+<_k.cu_9>"),
              replaced(original, "        tile[i] += out[j];",
                       "        __syncthreads();\n        continue;\n        tile[i] += out[j];"));
    EXPECT_EQ(body("<_k.cu_13>+<_k.cu_6>"), replaced(original, "    out[i] = tile[i];", "    out[i] = 0;\n    out[i] = tile[i];"));
}

TEST_F(Apply, InsertBeforeABracelessBodyWrapsItInBraces) {
    EXPECT_EQ(body("<_k.cu_9>+<_k.cu_10>"),
              replaced(original, "if (j > 4) continue;", "if (j > 4) { __syncthreads();\n        continue; }"));
}

TEST_F(Apply, IfAndForPartsTakeTheCopiedText) {
    EXPECT_EQ(body("<IF_k.cu_9><IF_k.cu_6>"), replaced(original, "if (j > 4)", "if (i < n)"));
    EXPECT_EQ(body("<for2_k.cu_7><IF_k.cu_9>"), replaced(original, "j < n;", "j > 4;"))
        << "apply trusts its input; validate rejects the kind mismatch";
}

TEST_F(Apply, PragmaInAnEmptySlotGetsItsOwnLine) {
    EXPECT_EQ(body("<pragma_k.cu_7><pragma_K4>"),
              replaced(original, "    for (int j", "    #pragma unroll 4\n    for (int j"));
    EXPECT_EQ(body("<pragma_k.cu_7><pragma_K0>"), replaced(original, "    for (int j", "    #pragma unroll\n    for (int j"));
    EXPECT_EQ(body("<pragma_k.cu_7>"), original) << "deleting an empty pragma changes nothing";
}

TEST(ApplyPragma, ExistingPragmaIsReplacedInPlaceOrDeleted) {
    testing::GrammarBuilder b;
    b.text("__global__ void k() {\n    ").rule(RuleKind::Pragma, "#pragma unroll 2", {{}, {}, {}, 0, false, false, {}, "    "});
    b.text("\n    for (;;) {}\n}\n");
    const Grammar g = b.build();
    const std::string header = "// gi-optimize variant: ";
    EXPECT_EQ(apply_genome(parse_genome("<pragma_k.cu_2><pragma_K8>"), g).source,
              header + "<pragma_k.cu_2><pragma_K8>\n__global__ void k() {\n    #pragma unroll 8\n    for (;;) {}\n}\n");
    EXPECT_EQ(apply_genome(parse_genome("<pragma_k.cu_2>"), g).source,
              header + "<pragma_k.cu_2>\n__global__ void k() {\n    \n    for (;;) {}\n}\n");
}

TEST_F(Apply, LaterEditsOnARemovedTargetAreSkippedButInsertsStillApply) {
    const AppliedVariant v = apply("<_k.cu_8> <_k.cu_8><_k.cu_10> <_k.cu_8> <_k.cu_8>+<_k.cu_10> <_k.cu_10><_k.cu_8> <_k.cu_10>");
    EXPECT_EQ(v.skipped_edits, (std::vector<std::string>{"<_k.cu_8><_k.cu_10>", "<_k.cu_8>", "<_k.cu_10>"}));
    std::string expected = replaced(original, "        tile[i] += out[j];\n", "        __syncthreads();\n        \n");
    expected = replaced(expected, "        __syncthreads();\n    }", "        tile[i] += out[j];\n    }");
    EXPECT_EQ(v.source.substr(v.source.find('\n') + 1), expected);
}

TEST_F(Apply, ParamGene) {
    EXPECT_EQ(body("BLOCK_W=128"), replaced(original, "#define BLOCK_W 64", "#define BLOCK_W 128"));
}

TEST_F(Apply, GuardGeneOffRemovesTheDefine) {
    EXPECT_EQ(body("USE_SHARED=0"), replaced(original, "#define USE_SHARED 1\n", "\n"));
}

TEST(ApplyGuard, GuardThatWasDefinedAsZero) {
    testing::GrammarBuilder b;
    b.gene(testing::make_gene("FAST", GeneKind::Guard, {"0", "1"}, "1"), "#define FAST 0", "#define FAST ");
    b.text("\n");
    const Grammar g = b.build();
    EXPECT_EQ(apply_genome(parse_genome("FAST=0"), g).source, "// gi-optimize variant: FAST=0\n#define FAST 0\n");
}

TEST(ApplyGuard, GuardWithNoDefineInTheFile) {
    testing::GrammarBuilder b;
    b.gene(testing::make_gene("XHALO", GeneKind::Guard, {"0", "1"}, "0"), "");
    b.text("#if XHALO\nint a;\n#endif\n");
    const Grammar g = b.build();
    EXPECT_EQ(apply_genome(parse_genome("XHALO=1"), g).source,
              "// gi-optimize variant: XHALO=1\n#define XHALO 1\n#if XHALO\nint a;\n#endif\n");
    EXPECT_EQ(apply_genome(parse_genome("XHALO=0"), g).source,
              "// gi-optimize variant: XHALO=0\n#if XHALO\nint a;\n#endif\n");
}

TEST_F(Apply, HeaderGenes) {
    EXPECT_EQ(body("restrict=0"), replaced(original, "float* __restrict__ out", "float* out"));
    EXPECT_EQ(body("const_n=1"), replaced(original, "int n)", "const int n)"));
    EXPECT_EQ(body("volatile=1"), replaced(original, "    __shared__", "    volatile __shared__"));
    EXPECT_EQ(body("launch_bounds=on"), replaced(original, "void k(", "void __launch_bounds__(BLOCK_W) k("));
    EXPECT_EQ(body("launch_bounds=3"), replaced(original, "void k(", "void __launch_bounds__(BLOCK_W, 3) k("));
}

TEST_F(Apply, FlagGenesBecomeCompileOptionsInGeneOrder) {
    EXPECT_EQ(apply("use_fast_math=1").compile_options, (std::vector<std::string>{"-use_fast_math"}));
    EXPECT_EQ(apply("dlcm=cg use_fast_math=1").compile_options,
              (std::vector<std::string>{"-use_fast_math", "-Xptxas", "-dlcm=cg"}));
    EXPECT_TRUE(apply("dlcm=off use_fast_math=0").compile_options.empty());
    EXPECT_EQ(body("dlcm=ca"), original) << "flags never touch the source";
}

TEST(ApplyFlags, EmptyTemplateOnOffFlagIsNamedAfterTheGene) {
    testing::GrammarBuilder b;
    b.text("int a;\n");
    Gene ftz = testing::make_gene("ftz", GeneKind::Flag, {"0", "1"}, "0");
    b.flag(ftz);
    EXPECT_EQ(apply_genome(parse_genome("ftz=1"), b.build()).compile_options, (std::vector<std::string>{"-ftz"}));
}

TEST_F(Apply, IsDeterministic) {
    const std::string genome = "BLOCK_W=32 volatile=1 <_k.cu_8>+<_k.cu_10> <pragma_k.cu_7><pragma_K3> <_k.cu_6>";
    const AppliedVariant a = apply(genome), b = apply(genome);
    EXPECT_EQ(a.source, b.source);
    EXPECT_EQ(a.compile_options, b.compile_options);
}

TEST_F(Apply, UnknownRuleOrGeneIsAnError) {
    EXPECT_THROW(apply("<_k.cu_99>"), Error);
    EXPECT_THROW(apply("<_k.cu_8><_k.cu_99>"), Error);
    EXPECT_THROW(apply("<_k.cu_8>+<_k.cu_99>"), Error);
    EXPECT_THROW(apply("ROWS=3"), Error);
    try {
        apply("<_k.cu_8> <_k.cu_8><_k.cu_99>");
        FAIL() << "a skipped edit naming a missing rule is still an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("_k.cu_99"), std::string::npos) << e.what();
    }
}

TEST_F(Apply, MacrosFollowParamsAndGuards) {
    MacroTable m = macros_for(Genome{}, grammar);
    EXPECT_EQ(m.at("BLOCK_W"), "64");
    EXPECT_EQ(m.at("USE_SHARED"), "1");
    m = macros_for(parse_genome("BLOCK_W=128 USE_SHARED=0"), grammar);
    EXPECT_EQ(m.at("BLOCK_W"), "128");
    EXPECT_EQ(m.count("USE_SHARED"), 0u);
}

TEST_F(Apply, RuleLivenessFollowsTheConditions) {
    const Rule& guarded = *grammar.find_rule("_k.cu_13");
    const Rule& plain = *grammar.find_rule("_k.cu_8");
    EXPECT_TRUE(rule_is_live(guarded, grammar, macros_for(Genome{}, grammar)));
    EXPECT_FALSE(rule_is_live(guarded, grammar, macros_for(parse_genome("USE_SHARED=0"), grammar)));
    EXPECT_TRUE(rule_is_live(plain, grammar, macros_for(parse_genome("USE_SHARED=0"), grammar)));
}

TEST_F(Apply, MakeVariantKeysByProgramNotByGenomeText) {
    const Variant plain = make_variant(Genome{}, grammar);
    EXPECT_EQ(plain.source, apply("").source);
    EXPECT_EQ(plain.key.size(), 64u);
    EXPECT_EQ(make_variant(Genome{}, grammar).key, plain.key);
    const Variant fast = make_variant(parse_genome("use_fast_math=1"), grammar);
    EXPECT_EQ(fast.compile_options, (std::vector<std::string>{"-use_fast_math"}));
    EXPECT_NE(fast.key, make_variant(parse_genome("use_fast_math=0"), grammar).key);
    EXPECT_NE(make_variant(parse_genome("<_k.cu_8>"), grammar).key, plain.key);
    // Genomes that make the same program share its key, though the header names each genome.
    const Variant a = make_variant(parse_genome("<_k.cu_8> <_k.cu_8>"), grammar);
    EXPECT_EQ(a.key, make_variant(parse_genome("<_k.cu_8>"), grammar).key);
    EXPECT_EQ(make_variant(parse_genome("BLOCK_W=64"), grammar).key, plain.key);
    EXPECT_NE(a.source, make_variant(parse_genome("<_k.cu_8>"), grammar).source);
    EXPECT_EQ(a.genome, parse_genome("<_k.cu_8> <_k.cu_8>"));
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Issue 39, class 20: a kernel file that starts with a UTF-8 byte order mark. The variant's comment
// line went before it, so the mark sat at the start of line 2 and no compiler took the file.
TEST(ApplyByteOrderMark, TheMarkStaysTheVariantsFirstBytes) {
    const std::string bom = "\xEF\xBB\xBF";
    testing::GrammarBuilder b;
    b.text(bom);
    b.gene(testing::make_gene("FAST", GeneKind::Guard, {"0", "1"}, "1"), "#define FAST 1", "#define FAST ");
    b.text("\nint a = FAST;\n");
    const Grammar g = b.build();
    const std::string source = apply_genome(parse_genome("FAST=0"), g).source;
    EXPECT_EQ(source, bom + "// gi-optimize variant: FAST=0\n\nint a = FAST;\n");
    EXPECT_EQ(headed("// x", "int a;\n"), "// x\nint a;\n");
}

}  // namespace
}  // namespace gi
