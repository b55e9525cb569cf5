// grammar/preprocessed_identity.hpp: one identity exactly for texts the preprocessor turns into the
// same program, as far as can be told safely, and none where it cannot be told.
#include "grammar/preprocessed_identity.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gi {
namespace {

// A kernel with a mode switch, a type only one mode reads, and a size every mode reads.
std::string kernel(const std::string& mode, const std::string& type, const std::string& size,
                   const std::string& extra = "") {
    return "// variant: MODE=" + mode + " T=" + type + "\n"
           "#define MODE " + mode + "\n"
           "#define T " + type + "\n"
           "#define SIZE " + size + "\n"
           "#define TWICE (SIZE * 2)\n" + extra +
           "__global__ void k(float* out) {\n"
           "#if MODE == 1\n"
           "    __shared__ T tile[TWICE];  /* the tile */\n"
           "    tile[threadIdx.x] = 0;\n"
           "    out[threadIdx.x] = tile[threadIdx.x];\n"
           "#else\n"
           "    out[threadIdx.x] = TWICE;\n"
           "#endif\n"
           "}\n";
}

TEST(PreprocessedIdentity, AMacroNoKeptCodeReadsDoesNotMatter) {
    const std::string base = preprocessed_identity(kernel("0", "float", "8"));
    ASSERT_EQ(base.size(), 64u);
    EXPECT_EQ(preprocessed_identity(kernel("0", "int", "8")), base);     // T is read only in mode 1
    EXPECT_NE(preprocessed_identity(kernel("1", "float", "8")), base);   // another branch kept
    EXPECT_NE(preprocessed_identity(kernel("1", "int", "8")), preprocessed_identity(kernel("1", "float", "8")));
    EXPECT_NE(preprocessed_identity(kernel("0", "float", "16")), base);  // read through TWICE
}

TEST(PreprocessedIdentity, CommentsAndBlanksDoNotMatterLiteralsDo) {
    const std::string base = preprocessed_identity(kernel("0", "float", "8"));
    std::string commented = kernel("0", "float", "8");
    commented.replace(commented.find("out[threadIdx.x] = TWICE;"), 0, "/* a much longer comment */   ");
    EXPECT_EQ(preprocessed_identity(commented), base);
    const std::string with_string = kernel("0", "float", "8", "const char* name = \"a  b\";\n");
    const std::string other_string = kernel("0", "float", "8", "const char* name = \"a b\";\n");
    EXPECT_NE(preprocessed_identity(with_string), preprocessed_identity(other_string));
    const std::string with_slashes = kernel("0", "float", "8", "const char* path = \"//x\";\n");
    const std::string other_slashes = kernel("0", "float", "8", "const char* path = \"//y\";\n");
    EXPECT_NE(preprocessed_identity(with_slashes), preprocessed_identity(other_slashes));
}

TEST(PreprocessedIdentity, ElifElseAndIfdefChains) {
    auto text = [](const std::string& mode) {
        return "#ifndef MODE\n#define MODE " + mode + "\n#endif\n"
               "#if MODE == 0\nint a;\n#elif MODE == 1\nint b;\n#else\nint c;\n#endif\n"
               "#ifdef UNSET\nint d;\n#endif\n";
    };
    EXPECT_NE(preprocessed_identity(text("0")), preprocessed_identity(text("1")));
    EXPECT_NE(preprocessed_identity(text("1")), preprocessed_identity(text("2")));
    EXPECT_EQ(preprocessed_identity(text("2")), preprocessed_identity(text("3")));  // both take #else
}

TEST(PreprocessedIdentity, UndecidableRegionsKeepEveryBranch) {
    // Which branch NVRTC keeps is not known here: a macro read in either one still matters.
    auto text = [](const std::string& size) {
        return "#define SIZE " + size + "\n#ifdef __CUDACC_RTC__\nint a;\n#else\nint b[SIZE];\n#endif\n";
    };
    EXPECT_FALSE(preprocessed_identity(text("4")).empty());
    EXPECT_NE(preprocessed_identity(text("4")), preprocessed_identity(text("8")));
}

TEST(PreprocessedIdentity, NothingWhereItCannotBeTold) {
    EXPECT_EQ(preprocessed_identity("#include \"helpers.cuh\"\nint a;\n"), "");
    EXPECT_EQ(preprocessed_identity("#define CAT(a, b) a##b\nint CAT(x, y);\n"), "");
    EXPECT_EQ(preprocessed_identity("#ifdef __CUDA_ARCH__\n#define N 4\n#endif\nint a[N];\n"), "");
    EXPECT_EQ(preprocessed_identity("#if 1\nint a;\n"), "");   // no #endif
    EXPECT_EQ(preprocessed_identity("int a;\n#endif\n"), "");  // no #if
    EXPECT_EQ(preprocessed_identity("int a; /* never closed\n"), "");
    EXPECT_EQ(preprocessed_identity("const char* s = R\"(//)\";\n"), "");
    // A function-like macro in an #if cannot be evaluated: every branch is kept, still an identity.
    EXPECT_FALSE(preprocessed_identity("#define F(x) x\n#if F(1)\nint a;\n#endif\n").empty());
}

TEST(PreprocessedIdentity, FunctionLikeMacrosCountWithTheirParameters) {
    auto text = [](const std::string& body) { return "#define AT(i) " + body + "\nint f(int* p) { return AT(3); }\n"; };
    EXPECT_NE(preprocessed_identity(text("p[i]")), preprocessed_identity(text("p[i + 1]")));
    EXPECT_EQ(preprocessed_identity(text("p[i]")), preprocessed_identity(text("p[i]")));
}

}  // namespace
}  // namespace gi
