// The vector-load transformation (vec_<file>_<line>) on code written to trip it: the pointer hidden
// by a local, written in the body or read through a member or a comment, a subscript spelled
// with spaces and comments, `float const*` and __restrict__ spellings, a store through a local
// array, nested loops both vectorised. Each is either not offered or gives text that compiles.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::vector<std::string> vec_genes_of(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Vectorize) names.push_back(gene.name);
    return names;
}

TEST(HostileVectorLoad, NotOfferedWhereThePointerIsNotWhatItSeems) {
    const Grammar grammar = test::grammar_of(
        "struct P { const float* x; };\n"                                                      // 1
        "__global__ void k(const float* x, float* y, P p, int n) {\n"                          // 2
        "    float t = 0;\n"                                                                    // 3
        "    for (int i = 0; i < n; ++i) { t += x[i]; x = y; }\n"                               // 4 written
        "    for (int i = 0; i < n; ++i) t += p.x[i];\n"                                        // 5 a member
        "    for (int i = 0; i < n; ++i) t += *(x + i);\n"                                      // 6 not x[i]
        "    for (int i = 0; i < n; ++i) { float l[2]; l[0] = x[i]; t += l[0]; }\n"             // 7 a store
        "    for (int i = 0; i < n; ++i) { t += x[i]; i += 0; }\n"                              // 8 writes i
        "    for (int i = 0; i < n; ++i) { const float* x = y; t += x[i]; }\n"                 // 9 hidden
        "    y[0] = t;\n"
        "}\n");
    EXPECT_TRUE(vec_genes_of(grammar).empty()) << vec_genes_of(grammar).front();
}

TEST(HostileVectorLoad, OddSpellingsAndNestedLoopsGiveTextThatCompiles) {
    const char* const kernel =
        "__global__ void k(float const* __restrict__ x, const float *__restrict w, float* __restrict__ y,\n"  // 1
        "                  int n, int m) {\n"                                                                 // 2
        "    for (int r = 0; r < m; ++r) {\n"                                                                 // 3
        "        float t = 0;\n"                                                                              // 4
        "        for (int i = 0; i < n; i++) { /* x[i + 1] */ t += x [ /* at */ i ] * w[i]; // w[0]\n"        // 5
        "            y[r * n + i] = t;\n"                                                                     // 6
        "        }\n"                                                                                         // 7
        "    }\n"                                                                                             // 8
        "}\n";
    const Grammar grammar = test::grammar_of(kernel, {}, "odd name+1.cu");
    EXPECT_EQ(vec_genes_of(grammar), (std::vector<std::string>{"vec_odd_name_1.cu_5"}));
    const AppliedVariant variant = apply_genome(parse_genome("vec_odd_name_1.cu_5=4 unroll_odd_name_1.cu_3=2"), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    // The comments keep their text; the read spelled with them becomes a lane.
    EXPECT_NE(variant.source.find("/* x[i + 1] */ t += gi_vec5_x.z * gi_vec5_w.z; // w[0]"), std::string::npos)
        << variant.source;
    if (!nvrtc_available()) return;
    DeviceCompileRequest request;
    request.source = variant.source;
    const DeviceCompileResult result = compile_with_nvrtc(request);
    EXPECT_TRUE(result.ok) << result.log << "\n" << variant.source;
}

}  // namespace
}  // namespace gi
