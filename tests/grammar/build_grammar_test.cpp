#include "grammar/build_grammar.hpp"

#include <gtest/gtest.h>

#include "grammar_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using test::grammar_of;
using test::rule_with_text;

TEST(BuildGrammar, ReproducesTestKernelsByteForByte) {
    for (const char* name : {"stereo_like.cu"}) {
        const SourceFile source = read_source_file(test::grammar_data(name));
        GrammarOptions options;
        options.params.push_back(parse_param_declaration("BLOCK_W=32,128", "--param"));
        options.block_size = "BLOCK_W";
        const Grammar grammar = build_grammar(source, options);
        test::expect_reproduces(grammar, source.text);
        EXPECT_FALSE(grammar.rules.empty()) << name;
    }
}

TEST(BuildGrammar, TypesStatementsConditionsAndLoopParts) {
    const std::string text =
        "__global__ void k(float* a, int n) {\n"
        "    int i = threadIdx.x;\n"
        "    if (i < n) a[i] = 0;\n"
        "    for (int j = 0; j < n; j++) {\n"
        "        a[j] += 1.0f; a[j] *= 2.0f;\n"
        "    }\n"
        "}\n";
    const Grammar grammar = grammar_of(text);
    test::expect_reproduces(grammar, text);
    ASSERT_NE(grammar.find_rule("IF_k.cu_3"), nullptr);
    EXPECT_EQ(grammar.find_rule("IF_k.cu_3")->text, "i < n");
    EXPECT_EQ(grammar.find_rule("<_k.cu_3>")->text, "a[i] = 0;");
    EXPECT_TRUE(grammar.find_rule("_k.cu_3")->braceless_body);
    EXPECT_EQ(grammar.find_rule("for1_k.cu_4")->text, "int j = 0");
    EXPECT_EQ(grammar.find_rule("for1_k.cu_4")->declares, std::vector<std::string>{"j"});
    EXPECT_EQ(grammar.find_rule("for2_k.cu_4")->text, "j < n");
    EXPECT_EQ(grammar.find_rule("for3_k.cu_4")->text, "j++");
    EXPECT_EQ(grammar.find_rule("pragma_k.cu_4")->text, "");
    EXPECT_EQ(grammar.find_rule("_k.cu_5")->text, "a[j] += 1.0f;");
    EXPECT_EQ(grammar.find_rule("_k.cu_5.2")->text, "a[j] *= 2.0f;");
    EXPECT_EQ(grammar.find_rule("_k.cu_5")->loop_depth, 1);
    EXPECT_EQ(rule_with_text(grammar, "int i = threadIdx.x;"), nullptr) << "declarations are fixed";
}

TEST(BuildGrammar, NoSuchFunctionListsTheKernelsFound) {
    GrammarOptions options;
    options.functions = {"missing"};
    try {
        grammar_of("__global__ void present(int* a) { a[0] = 1; }\n", options);
        FAIL() << "expected gi::Error";
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("k.cu"), std::string::npos) << message;
        EXPECT_NE(message.find("missing"), std::string::npos) << message;
        EXPECT_NE(message.find("'present'"), std::string::npos) << message;
    }
}

}  // namespace
}  // namespace gi
