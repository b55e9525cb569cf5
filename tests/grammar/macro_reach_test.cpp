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

}  // namespace
}  // namespace gi
