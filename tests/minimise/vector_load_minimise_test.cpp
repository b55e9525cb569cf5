// The vector-load transformation (vec_<file>_<line>) in minimisation: knocked out like any item,
// dropped where it does not pay and kept where it does.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "minimise/minimise.hpp"

namespace gi {
namespace {

const char* const kMinimiseVecKernel =
    "__global__ void dot(const float* a, const float* b, float* out, int n) {\n"  // 1
    "    float acc = 0.0f;\n"                                                      // 2
    "    for (int j = 0; j < n; ++j) {\n"                                          // 3
    "        acc += a[j] * b[j];\n"                                                // 4
    "    }\n"                                                                      // 5
    "    out[blockIdx.x] = acc;\n"                                                 // 6
    "}\n";

MinimiseResult minimise_vec(double vec_effect, double restrict_effect) {
    const Grammar grammar = test::grammar_of(kMinimiseVecKernel);
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.005;
    landscape.declared["vec_k.cu_3=4"] = FakeEffect::time(vec_effect);
    landscape.declared["restrict=1"] = FakeEffect::time(restrict_effect);
    FakeEvaluator fake(grammar, landscape);
    return minimise(parse_genome("vec_k.cu_3=4 restrict=1"), grammar, fake, 0, MinimiseOptions{});
}

TEST(VectorLoadMinimise, DropsTheGeneWhereItDoesNotPay) {
    const MinimiseResult result = minimise_vec(1.0, 0.8);
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "restrict=1");
    ASSERT_FALSE(result.steps.empty());
    EXPECT_EQ(result.steps[0].item, "vec_k.cu_3=4");
    EXPECT_TRUE(result.steps[0].removed);
}

TEST(VectorLoadMinimise, KeepsItWhereItPays) {
    const MinimiseResult result = minimise_vec(0.7, 1.0);
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "vec_k.cu_3=4");
}

}  // namespace
}  // namespace gi
