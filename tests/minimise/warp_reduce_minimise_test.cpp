// The warp-shuffle transformation (shfl_<file>_<line>) in minimisation: knocked out like any item,
// dropped where it does not pay and kept where it does.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "minimise/minimise.hpp"

namespace gi {
namespace {

const char* const kMinimiseShflKernel =
    "__global__ void block_sum(const float* in, float* out) {\n"                      // 1
    "    __shared__ float sdata[256];\n"                                               // 2
    "    unsigned tid = threadIdx.x;\n"                                                // 3
    "    sdata[tid] = in[blockIdx.x * blockDim.x + tid];\n"                            // 4
    "    __syncthreads();\n"                                                           // 5
    "    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"                        // 6
    "        if (tid < s) sdata[tid] += sdata[tid + s];\n"                             // 7
    "        __syncthreads();\n"                                                       // 8
    "    }\n"                                                                          // 9
    "    if (tid == 0) out[blockIdx.x] = sdata[0];\n"                                  // 10
    "}\n";

MinimiseResult minimise_shfl(double shfl_effect, double restrict_effect) {
    const Grammar grammar = test::grammar_of(kMinimiseShflKernel);
    EXPECT_TRUE(grammar.find_gene("shfl_k.cu_6"));
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.005;
    landscape.declared["shfl_k.cu_6=1"] = FakeEffect::time(shfl_effect);
    landscape.declared["restrict=1"] = FakeEffect::time(restrict_effect);
    FakeEvaluator fake(grammar, landscape);
    return minimise(parse_genome("shfl_k.cu_6=1 restrict=1"), grammar, fake, 0, MinimiseOptions{});
}

TEST(WarpReduceMinimise, DropsTheGeneWhereItDoesNotPay) {
    const MinimiseResult result = minimise_shfl(1.0, 0.8);
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "restrict=1");
    ASSERT_FALSE(result.steps.empty());
    EXPECT_EQ(result.steps[0].item, "shfl_k.cu_6=1");
    EXPECT_TRUE(result.steps[0].removed);
}

TEST(WarpReduceMinimise, KeepsItWhereItPays) {
    const MinimiseResult result = minimise_shfl(0.7, 1.0);
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "shfl_k.cu_6=1");
}

}  // namespace
}  // namespace gi
