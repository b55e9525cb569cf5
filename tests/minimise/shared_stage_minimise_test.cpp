// The shared-memory staging transformation (stage_<file>_<line>) in minimisation: knocked out like
// any item, dropped where it does not pay and kept where it does.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "minimise/minimise.hpp"

namespace gi {
namespace {

const char* const kMinimiseStageKernel =
    "#define R 4\n"                                                                    // 1
    "__global__ void __launch_bounds__(256) smooth(const float* in, float* out, int n) {\n"  // 2
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                             // 3
    "    float acc = 0.0f;\n"                                                          // 4
    "    for (int k = -R; k <= R; ++k)\n"                                              // 5
    "        if (i + k >= 0 && i + k < n) acc += in[i + k];\n"                         // 6
    "    if (i < n) out[i] = acc;\n"                                                   // 7
    "}\n";

MinimiseResult minimise_stage(double stage_effect, double restrict_effect) {
    const Grammar grammar = test::grammar_of(kMinimiseStageKernel);
    EXPECT_TRUE(grammar.find_gene("stage_k.cu_5"));
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.005;
    landscape.declared["stage_k.cu_5=1"] = FakeEffect::time(stage_effect);
    landscape.declared["restrict=1"] = FakeEffect::time(restrict_effect);
    FakeEvaluator fake(grammar, landscape);
    return minimise(parse_genome("stage_k.cu_5=1 restrict=1"), grammar, fake, 0, MinimiseOptions{});
}

TEST(SharedStageMinimise, DropsTheGeneWhereItDoesNotPay) {
    const MinimiseResult result = minimise_stage(1.0, 0.8);
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "restrict=1");
    ASSERT_FALSE(result.steps.empty());
    EXPECT_EQ(result.steps[0].item, "stage_k.cu_5=1");
    EXPECT_TRUE(result.steps[0].removed);
}

TEST(SharedStageMinimise, KeepsItWhereItPays) {
    const MinimiseResult result = minimise_stage(0.7, 1.0);
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "stage_k.cu_5=1");
}

}  // namespace
}  // namespace gi
