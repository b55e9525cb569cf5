// The cuda evaluator launches a coarsened variant (coarsen_<file>_<line>=K) with the grid's x
// divided by K, rounding up, as the variant file's grid function divides it; the original and
// variants without the gene keep the recorded or declared grid.
#include <gtest/gtest.h>

#include <cstring>

#include "../grammar/grammar_test_util.hpp"
#include "cuda/case_set.hpp"

namespace gi {
namespace {

TEST(CoarsenGeometry, TheGridOfACoarsenedVariantIsDividedByItsFactor) {
    const Grammar grammar = test::grammar_of(
        "__global__ void k(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1; }\n"
        "dim3 k_grid(int n) { return dim3((n + 127) / 128); }\n");
    ASSERT_TRUE(grammar.find_gene("coarsen_k.cu_1"));
    CaseKernel kernel;
    kernel.function = "k";
    kernel.read_names(grammar);
    TestCase tc;
    tc.kernel = "k";
    tc.block = {128, 1, 1};
    tc.grid = {1001, 3, 1};
    EXPECT_EQ(kernel.geometry_of(tc, Genome{}).grid, (Dim3{1001, 3, 1}));
    EXPECT_EQ(kernel.geometry_of(tc, parse_genome("coarsen_k.cu_1=1")).grid, (Dim3{1001, 3, 1}));
    EXPECT_EQ(kernel.geometry_of(tc, parse_genome("coarsen_k.cu_1=2")).grid, (Dim3{501, 3, 1}));
    EXPECT_EQ(kernel.geometry_of(tc, parse_genome("coarsen_k.cu_1=4")).grid, (Dim3{251, 3, 1}));
    EXPECT_EQ(kernel.geometry_of(tc, parse_genome("coarsen_k.cu_1=4")).block, (Dim3{128, 1, 1}));
    // A declared grid is divided the same way.
    kernel.geometry = parse_launch_geometry("", "ceil(arg1/128)");
    CaseArg out;
    out.kind = CaseArg::Kind::Pointer;
    CaseArg n;
    n.kind = CaseArg::Kind::Scalar;
    n.size = 4;
    n.element = ElementType::I32;
    const int count = 1000;
    n.value.resize(4);
    std::memcpy(n.value.data(), &count, 4);
    tc.args = {out, n};
    tc.grid = {8, 1, 1};
    EXPECT_EQ(kernel.geometry_of(tc, parse_genome("coarsen_k.cu_1=4")).grid, (Dim3{2, 1, 1}));
}

}  // namespace
}  // namespace gi
