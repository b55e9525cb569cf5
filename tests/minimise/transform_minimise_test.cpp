// Transformation genes (issue 46) in minimisation and the report: a transformation is knocked out
// like any other item, kept where it pays and dropped where it does not, and the report's source
// view shows the lines it rewrites under its own name.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "minimise/minimise.hpp"
#include "report/edit_diff.hpp"

namespace gi {
namespace {

const char* const kMinimiseLoopKernel =
    "__global__ void dot(const float* a, float* out, int n, int m) {\n"  // 1
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"               // 2
    "    if (i >= n) return;\n"                                          // 3
    "    float acc = 0;\n"                                               // 4
    "    for (int j = 0; j < m; ++j) {\n"                                // 5
    "        const float w = a[i] * 2.0f;\n"                             // 6
    "        acc += w * a[j];\n"                                         // 7
    "    }\n"                                                            // 8
    "    out[i] = acc;\n"                                                // 9
    "}\n";

TEST(TransformMinimise, KeepsTheTransformationThatPaysAndDropsTheOthers) {
    const Grammar grammar = test::grammar_of(kMinimiseLoopKernel);
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.005;
    landscape.declared["unroll_k.cu_5=4"] = FakeEffect::time(0.7);
    landscape.declared["hoist_k.cu_6=1"] = FakeEffect::time(1.0);
    landscape.declared["unguard_k.cu_3=1"] = FakeEffect::time(1.001);
    FakeEvaluator fake(grammar, landscape);
    const Genome evolved = parse_genome("unguard_k.cu_3=1 hoist_k.cu_6=1 unroll_k.cu_5=4");
    const MinimiseResult result = minimise(evolved, grammar, fake, 0, MinimiseOptions{});
    ASSERT_TRUE(result.ran) << result.note;
    EXPECT_EQ(result.after, "unroll_k.cu_5=4");
    ASSERT_EQ(result.steps.size(), 3u);
    EXPECT_EQ(result.steps[0].item, "unguard_k.cu_3=1");
    EXPECT_TRUE(result.steps[0].removed);
    EXPECT_TRUE(result.steps[1].removed);
    EXPECT_EQ(result.steps[2].item, "unroll_k.cu_5=4");
    EXPECT_FALSE(result.steps[2].removed);
}

TEST(TransformMinimise, TheReportShowsTheLinesATransformationRewrites) {
    const Grammar grammar = test::grammar_of(kMinimiseLoopKernel);
    const std::vector<ItemDiff> diffs = item_diffs(parse_genome("hoist_k.cu_6=1 unguard_k.cu_3=1"), grammar,
                                                   kMinimiseLoopKernel);
    ASSERT_EQ(diffs.size(), 2u);
    EXPECT_EQ(diffs[0].item, "hoist_k.cu_6=1");
    // Two places: the declaration put in before the loop, and taken out of its body.
    ASSERT_EQ(diffs[0].hunks.size(), 2u);
    EXPECT_EQ(diffs[0].hunks[0].first_line, 5);
    EXPECT_EQ(diffs[0].hunks[0].before, (std::vector<std::string>{"    for (int j = 0; j < m; ++j) {"}));
    EXPECT_EQ(diffs[0].hunks[0].after,
              (std::vector<std::string>{"    const float w = a[i] * 2.0f;", "    for (int j = 0; j < m; ++j) {"}));
    EXPECT_EQ(diffs[0].hunks[1].first_line, 6);
    EXPECT_EQ(diffs[0].hunks[1].after, (std::vector<std::string>{"        "}));
    EXPECT_EQ(diffs[1].item, "unguard_k.cu_3=1");
    ASSERT_EQ(diffs[1].hunks.size(), 1u);
    EXPECT_EQ(diffs[1].hunks[0].after, (std::vector<std::string>{"    if (false) return;"}));
}

}  // namespace
}  // namespace gi
