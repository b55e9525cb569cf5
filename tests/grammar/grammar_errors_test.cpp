// Every malformed input the grammar stage recognises: a gi::Error naming file:line with a hint.
#include <gtest/gtest.h>

#include "grammar/build_grammar.hpp"
#include "grammar_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

std::string grammar_error_of(const std::string& text, GrammarOptions options = {}) {
    try {
        test::grammar_of(text, options);
    } catch (const UsageError& e) {
        return std::string("usage: ") + e.what();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

void expect_error(const std::string& text, const std::vector<std::string>& fragments, GrammarOptions options = {}) {
    const std::string message = grammar_error_of(text, options);
    for (const std::string& fragment : fragments)
        EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << message;
}

TEST(GrammarErrors, NoSuchFunctionListsTheKernels) {
    GrammarOptions options;
    options.functions = {"missing"};
    expect_error("__global__ void present(int* a) { a[0] = 1; }\n__global__ void other(int* a) { a[0] = 1; }\n",
                 {"k.cu: ", "no __global__ function 'missing'", "'present', 'other'", "--function"}, options);
}

TEST(GrammarErrors, NoSuchFunctionMentionsADefineThatMakesIt) {
    GrammarOptions options;
    options.functions = {"made"};
    expect_error("#define MAKE __global__ void made(int* a) { a[0] = 1; }\nMAKE\n__global__ void real(int* a) { a[0] = 1; }\n",
                 {"no __global__ function 'made'", "#define at line 1", "'real'"}, options);
    options.functions = {"foo"};
    expect_error("#define KERNEL(n) __global__ void n(int* a) { a[0] = 1; }\nKERNEL(foo)\n__global__ void bar(int* a) {}\n",
                 {"the name appears at line 2", "'bar'"}, options);
}

TEST(GrammarErrors, DeclaredOnlyOrDeviceFunctionOrNoKernelAtAll) {
    GrammarOptions options;
    options.functions = {"k"};
    expect_error("__global__ void k(int* a);\n__global__ void j(int* a) {}\n", {"only declared"}, options);
    expect_error("__device__ void k(int* a) {}\n__global__ void j(int* a) {}\n", {"__device__ function"}, options);
    expect_error("int main() { return 0; }\n", {"k.cu: no __global__ function is defined"});
}

TEST(GrammarErrors, UnbalancedBraceSaysWhereItOpenedAndWhichKernel) {
    expect_error("// header\n__global__ void k(int* a)\n{\n  if (a[0]) {\n    a[1] = 2;\n}\n",
                 {"k.cu:3:", "'{' opened here is never closed", "the kernel 'k' starts at line 2", "'}'"});
    expect_error("__global__ void k(int* a) {\n  a[0] = 1;\n}\n}\n", {"k.cu:4:", "'}' closes nothing"});
}

TEST(GrammarErrors, UnbalancedParentheses) {
    expect_error("__global__ void k(int* a) {\n  a[0] = (1 + 2;\n}\n",
                 {"k.cu:3:", "'}' does not match the '('", "opened at line 2", "the kernel 'k'"});
    expect_error("__global__ void k(int* a) {\n  a[0] = 1 + 2);\n}\n", {"k.cu:2:", "')'"});
    expect_error("__global__ void k(int* a {\n  a[0] = 1;\n}\n", {"k.cu:"});
}

TEST(GrammarErrors, UnterminatedCommentStringAndCharacter) {
    expect_error("__global__ void k(int* a) {\n  /* open\n  a[0] = 1;\n}\n", {"k.cu:2:", "unterminated block comment"});
    expect_error("__global__ void k(int* a) {\n  const char* s = \"abc;\n}\n", {"k.cu:2:", "unterminated string"});
    expect_error("__global__ void k(int* a) {\n  char c = 'x;\n}\n", {"k.cu:2:", "unterminated character"});
}

TEST(GrammarErrors, PreprocessorChainsMustBeClosed) {
    expect_error("#if A\n__global__ void k(int* a) {}\n", {"k.cu:1:", "#if without #endif"});
    expect_error("#ifdef A\n#else\n#endif\n#endif\n__global__ void k(int* a) {}\n", {"k.cu:4:", "#endif without #if"});
    expect_error("#else\n__global__ void k(int* a) {}\n", {"k.cu:1:", "#else without #if"});
    expect_error("#elif B\n__global__ void k(int* a) {}\n", {"k.cu:1:", "#elif without #if"});
    expect_error("#if A\n#else\n#elif B\n#endif\n__global__ void k(int* a) {}\n", {"k.cu:3:", "after #else"});
    expect_error("#ifdef\n#endif\n__global__ void k(int* a) {}\n", {"k.cu:1:", "without a condition"});
}

TEST(GrammarErrors, IfBranchesWhoseBracesDoNotBalance) {
    expect_error("__global__ void k(int* a) {\n#if A\n  if (a[0]) {\n#else\n  if (a[1]) {\n#endif\n    a[2] = 1;\n  }\n}\n",
                 {"k.cu:2:", "#if branch", "balance"});
    // Balanced overall, but each branch alone is not.
    expect_error("__global__ void k(int* a) {\n#if A\n  if (a[0]) {\n#endif\n    a[2] = 1;\n#if A\n  }\n#endif\n}\n",
                 {"k.cu:2:", "does not balance its braces", "'k'"});
}

TEST(GrammarErrors, MacrosWithBracesInsideAKernel) {
    expect_error("#define BEGIN {\n#define END }\n__global__ void k(int* a) {\n  if (a[0]) BEGIN\n    a[2] = 1;\n  END\n}\n",
                 {"k.cu:4:", "BEGIN", "line 1", "macro the parser cannot follow"});
    // Balanced in total, so the brackets match, but the kernel still uses the macros.
    expect_error("#define OPEN (\n#define CLOSE )\n__global__ void k(int* a) {\n  a[0] = OPEN 1 CLOSE;\n}\n",
                 {"k.cu:4:", "OPEN", "macro the parser cannot follow"});
}

TEST(GrammarErrors, EmptyAndBinaryFiles) {
    expect_error("", {"k.cu: ", "empty"});
    expect_error("  \n\n\t\n", {"k.cu: ", "empty"});
    expect_error(std::string("__global__ void k(int* a)\n{ a[0] = 1; }") + std::string(2, '\0'), {"k.cu:2:", "NUL"});
}

TEST(GrammarErrors, BlockSizeWithAnEmptyPartIsAUsageError) {
    GrammarOptions options;
    options.block_size = "64,";
    expect_error("__global__ void k(int* a) { a[0] = 1; }\n", {"usage: ", "--block-size"}, options);
}

TEST(GrammarErrors, NestingTooDeepIsAnErrorNotACrash) {
    std::string text = "__global__ void k(int* a) {\n";
    for (int i = 0; i < 5000; ++i) text += "{";
    text += "a[0] = 1;";
    for (int i = 0; i < 5000; ++i) text += "}";
    text += "\n}\n";
    expect_error(text, {"k.cu:2:", "nested"});
    // A long else-if chain is not deep nesting.
    std::string chain = "__global__ void k(int* a) {\n";
    for (int i = 0; i < 3000; ++i) chain += "if (a[0] == " + std::to_string(i) + ") a[1] = 1; else ";
    chain += "a[1] = 0;\n}\n";
    const Grammar grammar = test::grammar_of(chain);
    EXPECT_EQ(grammar.rules.size(), 3000u * 2 + 1);
}

}  // namespace
}  // namespace gi
