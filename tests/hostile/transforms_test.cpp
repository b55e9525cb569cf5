// Transformation genes (issue 46) on code written to trip them: nested loops unrolled together,
// a declaration hoisted out of a loop that is unrolled too, preprocessor lines and comments in a
// loop, bodies that change the loop's bound, odd file names in gene names. Each is either not
// offered or gives text that compiles.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

const char* const kNestedKernel =
    "__global__ void nest(float* x, const float* w, int n, int m) {\n"            // 1
    "    for (int i = 0; i < n; ++i) {\n"                                          // 2
    "        const float s = w[0] * 3.0f; // scale\n"                              // 3
    "        for (int j = 0; j < m; j++) { /* inner */\n"                          // 4
    "            x[i * m + j] += s;\n"                                             // 5
    "        }\n"                                                                  // 6
    "    }\n"                                                                      // 7
    "}\n";

TEST(HostileTransforms, NestedLoopsUnrollFromTheInnermostOut) {
    const Grammar grammar = test::grammar_of(kNestedKernel, {}, "my kernel+x.cu");
    const Genome genome = parse_genome("unroll_my_kernel_x.cu_2=2 unroll_my_kernel_x.cu_4=2 hoist_my_kernel_x.cu_3=1");
    ASSERT_TRUE(grammar.find_gene("unroll_my_kernel_x.cu_2") && grammar.find_gene("unroll_my_kernel_x.cu_4") &&
                grammar.find_gene("hoist_my_kernel_x.cu_3"));
    const AppliedVariant variant = apply_genome(genome, grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    // Both unrolled: the outer loop's two copies and its remainder each hold the inner loop unrolled.
    std::size_t inner = 0;
    for (std::size_t at = variant.source.find("if (j + 1 < (m))"); at != std::string::npos;
         at = variant.source.find("if (j + 1 < (m))", at + 1))
        ++inner;
    EXPECT_EQ(inner, 3u) << variant.source;
    EXPECT_NE(variant.source.find("    const float s = w[0] * 3.0f;\n    for (int i = 0; i < n; ++i) { if (i + 1 < (n))"),
              std::string::npos)
        << variant.source;
    if (!nvrtc_available()) return;
    DeviceCompileRequest request;
    request.source = variant.source;
    const DeviceCompileResult compiled = compile_with_nvrtc(request);
    EXPECT_TRUE(compiled.ok) << compiled.log;
}

TEST(HostileTransforms, LoopsTheCopiesWouldChangeAreNotOffered) {
    const Grammar grammar = test::grammar_of(
        "#define STEP 1\n"
        "__global__ void k(float* x, int* count, int n) {\n"
        "    for (int i = 0; i < n; ++i) {\n"      // 3: the body moves its own bound
        "        n -= x[i] > 0;\n"
        "    }\n"
        "    for (int i = 0; i < count[0]; ++i) x[i] = 0;\n"  // 6: the bound is a load
        "    for (int i = 0; i < n; ++i) {\n"      // 7: a preprocessor line in the body
        "#if STEP\n"
        "        x[i] = 1;\n"
        "#endif\n"
        "    }\n"
        "    for (int i = n; i > 0; --i) x[i] = 2;\n"  // 12: counts down
        "    for (int i = 0; i < n; i = i * 2 + 1) x[i] = 3;\n"  // 13: not a constant stride
        "    for (int i = 0; i < n; ++i) { if (x[i] < 0) continue; x[i] = 4; }\n"  // 14: skips a trip
        "    for (int i = 0; i < n; ++i) { i += 1; }\n"  // 15: moves its own variable
        "    for (int i = 0; i < n; ++i) { float y = x[i]; x[i] = y; }\n"  // 16: offered, and no hoist
        "}\n");
    for (int line : {3, 6, 7, 12, 13, 14, 15})
        EXPECT_FALSE(grammar.find_gene("unroll_k.cu_" + std::to_string(line))) << line;
    EXPECT_TRUE(grammar.find_gene("unroll_k.cu_16"));
    EXPECT_FALSE(grammar.find_gene("hoist_k.cu_16")) << "y reads x[i], and i is the loop's";
    test::expect_reproduces(grammar, grammar.pieces.empty() ? "" : test::concatenate(grammar));
}

TEST(HostileTransforms, ChecksThatAreNotBoundsChecksAreKept) {
    const Grammar grammar = test::grammar_of(
        "__global__ void k(float* x, int n, float limit) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (x[0] < limit) x[1] = 0;\n"           // 3: data, not the thread's position
        "    if (i < n) x[i] = 1; else x[0] = 2;\n"   // 4: has an else
        "    if (i < n) { x[i] = 1; return; }\n"      // 5: leaves inside
        "    if ((i = n) > 0) x[0] = 3;\n"            // 6: assigns
        "    for (int j = 0; j < n; ++j) if (i < j) x[j] = 4;\n"  // 7: in a loop
        "    if (i < n) x[i] = 5;\n"                  // 8: offered
        "}\n");
    for (int line : {3, 4, 5, 6, 7}) EXPECT_FALSE(grammar.find_gene("unguard_k.cu_" + std::to_string(line))) << line;
    const Gene* offered = grammar.find_gene("unguard_k.cu_8");
    ASSERT_TRUE(offered);
    EXPECT_EQ(offered->site.replacement, "true");
}

}  // namespace
}  // namespace gi
