#include "grammar/bnf.hpp"

#include <gtest/gtest.h>

#include "grammar_test_util.hpp"

namespace gi {
namespace {

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

TEST(Bnf, SeedsStyleRulesForLinesSlotsGenesAndPragmas) {
    const std::string text =
        "#define BLOCK_W 64\n"
        "__global__ void k(float* a, int n) {\n"
        "    int i = threadIdx.x;\n"
        "    if (i < n) a[i] = \"x\"[0];\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        a[j] += 1.0f;\n"
        "    }\n"
        "}\n"
        "int main() { return 0; }\n";
    GrammarOptions options;
    options.params.push_back(parse_param_declaration("BLOCK_W=32,128", "--param"));
    options.block_size = "BLOCK_W";
    const std::string bnf = grammar_to_bnf(test::grammar_of(text, options));
    EXPECT_TRUE(contains(bnf, "# gi-optimize grammar (grammar version " + std::to_string(kGrammarVersion) + ") of k.cu\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "# __global__ k: lines 2-8\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<BLOCK_W> ::= \"64\" | \"32\" | \"128\"    # parameter, default \"64\", line 1\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<launch_bounds> ::= \"off\" | \"on\"")) << bnf;
    EXPECT_TRUE(contains(bnf, "<k.cu_2> ::= \"__global__ void \" <launch_bounds> \"k(float*\" <restrict> \" a, \" <const_n> \"int n) {\\n\"\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<k.cu_3> ::= \"    int i = threadIdx.x;\\n\"\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<k.cu_4> ::= \"    if (\" <IF_k.cu_4> \") \" <_k.cu_4> \"\\n\"\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<k.cu_5> ::= \"    \" <pragma_k.cu_5> \"for (\" <for1_k.cu_5> \"; \" <for2_k.cu_5> \"; \" <for3_k.cu_5> \") {\\n\"\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<IF_k.cu_4> ::= \"i < n\"    # uses i\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<_k.cu_4> ::= \"a[i] = \\\"x\\\"[0];\"    # uses i braceless\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<for1_k.cu_5> ::= \"int j = 0\"    # uses j declares j\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<_k.cu_6> ::= \"a[j] += 1.0f;\"    # uses j loop 1\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<pragma_k.cu_5> ::= \"\"\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<pragma_K0> ::= \"#pragma unroll\"\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<pragma_K16> ::= \"#pragma unroll 16\"\n")) << bnf;
    EXPECT_FALSE(contains(bnf, "main")) << "host code is not part of the grammar";
    EXPECT_FALSE(contains(bnf, "<k.cu_1>")) << "file-level lines are not kernel lines";
}

TEST(Bnf, ConditionsAndNotesAreShown) {
    const std::string text = "__global__ void k(float* __restrict__ a, float* b) {\n#if FAST\n    a[0] = b[0];\n#endif\n}\n";
    const std::string bnf = grammar_to_bnf(test::grammar_of(text));
    EXPECT_TRUE(contains(bnf, "<_k.cu_3> ::= \"a[0] = b[0];\"    # #if [FAST]\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "<FAST> ::= \"0\" | \"1\"    # #if guard, default \"0\"")) << bnf;
    EXPECT_TRUE(contains(bnf, "\n# notes\n")) << bnf;
    EXPECT_TRUE(contains(bnf, "\n# restrict gene not offered")) << bnf;
}

}  // namespace
}  // namespace gi
