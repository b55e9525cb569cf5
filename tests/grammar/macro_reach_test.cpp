// functions_reached_by_macros: which CUDA functions a #define reaches, directly, through other
// macros, or in an #if inside them; names in comments and strings do not count.
#include <gtest/gtest.h>

#include "grammar/macro_reach.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const char* const kFile =
    "#define BLOCK 256\n"
    "#define TILE (BLOCK / 2)\n"
    "#define IDX(i) ((i) * HALO)\n"
    "#define HALO 2\n"
    "#define FAST 0\n"
    "__device__ float helper(float x) { return x * TILE; }\n"
    "__global__ void direct(float* a) { a[threadIdx.x] = BLOCK; }\n"
    "__global__ void through_helper(float* a) { a[0] = helper(a[0]); }\n"
    "__global__ void through_function_macro(float* a) { a[IDX(1)] = 0; }\n"
    "__global__ void in_if(float* a) {\n"
    "#if FAST\n"
    "    a[0] = 1;\n"
    "#endif\n"
    "}\n"
    "__global__ void only_mentions(float* a) { /* BLOCK */ const char* s = \"BLOCK\"; a[0] = s[0]; }\n"
    "void host_code() { int b = BLOCK; (void)b; }\n";

TEST(MacroReach, DirectlyAndThroughOtherMacros) {
    const SourceFile source = make_source_file("reach.cu", kFile);
    EXPECT_EQ(functions_reached_by_macros(source, {"BLOCK"}), (std::vector<std::string>{"helper", "direct"}));
    EXPECT_EQ(functions_reached_by_macros(source, {"HALO"}), (std::vector<std::string>{"through_function_macro"}));
    EXPECT_EQ(functions_reached_by_macros(source, {"FAST"}), (std::vector<std::string>{"in_if"}));
    EXPECT_EQ(functions_reached_by_macros(source, {"TILE", "FAST"}), (std::vector<std::string>{"helper", "in_if"}));
    EXPECT_TRUE(functions_reached_by_macros(source, {"NOT_USED"}).empty());
    EXPECT_TRUE(functions_reached_by_macros(source, {}).empty());
}

TEST(MacroReach, AFileThatDoesNotParseIsAnError) {
    EXPECT_THROW(functions_reached_by_macros(make_source_file("bad.cu", "__global__ void k() { {\n"), {"X"}), Error);
}

// Host code is compiled once for all architectures (cache apply's multi-architecture check): where
// it reads a tuned macro, directly or through another, and where it does not.
TEST(MacroReach, HostUsesAreTheCodeOutsideDeviceOnlyFunctions) {
    const SourceFile source = make_source_file("k.cu",
        "#define BLOCK 256\n"                                          // 1
        "#define TILE (BLOCK / 2)\n"                                   // 2
        "#define STEPS 4\n"                                            // 3
        "__constant__ float c_Weights[TILE];\n"                        // 4: module scope, host sees it
        "__device__ int helper(int x) { return x * BLOCK; }\n"         // 5: device only
        "__host__ __device__ int both(int x) { return x * STEPS; }\n"  // 6: host too
        "__global__ void k(float* a) { a[threadIdx.x] = BLOCK; }\n"    // 7
        "#if BLOCK > 128\n"                                            // 8: file level
        "#endif\n"                                                     // 9
        "void launch(float* a, int n) {\n"                             // 10
        "    k<<<n / BLOCK, BLOCK>>>(a); // BLOCK in a comment\n"      // 11
        "}\n");
    std::vector<std::pair<std::string, int>> uses;
    for (const MacroUse& use : host_uses_of_macros(source, {"BLOCK"})) uses.emplace_back(use.macro, use.line);
    EXPECT_EQ(uses, (std::vector<std::pair<std::string, int>>{{"TILE", 4}, {"BLOCK", 8}, {"BLOCK", 11}, {"BLOCK", 11}}));
    uses.clear();
    for (const MacroUse& use : host_uses_of_macros(source, {"STEPS"})) uses.emplace_back(use.macro, use.line);
    EXPECT_EQ(uses, (std::vector<std::pair<std::string, int>>{{"STEPS", 6}}));
    EXPECT_TRUE(host_uses_of_macros(make_source_file("d.cu", "#define B 1\n__global__ void k(int* a) { a[0] = B; }\n"), {"B"})
                    .empty());
}

}  // namespace
}  // namespace gi
