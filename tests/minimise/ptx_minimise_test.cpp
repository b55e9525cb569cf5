// Minimisation and PTX edits (issue 46): a PTX edit is an item like any other, knocked out alone,
// kept when it pays and removed when it does not, and its step names it for the report.
#include <gtest/gtest.h>

#include "../support/search_test_support.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "minimise/minimise.hpp"

namespace gi {
namespace {

TEST(PtxMinimise, DropsUselessPtxEditsAndKeepsTheOnesThatPay) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.005;
    landscape.declared["<_k.cu_11>"] = FakeEffect::time(0.8);
    landscape.declared["ptx:del(7)"] = FakeEffect::time(0.7);
    landscape.declared["ptx:opnd(9,1,%r4)"] = FakeEffect::time(1.002);  // less than the noise
    FakeEvaluator fake(grammar, landscape);
    const MinimiseResult result =
        minimise(parse_genome("<_k.cu_11> ptx:del(7) ptx:swap(3,4) ptx:opnd(9,1,%r4)"), grammar, fake, 0, MinimiseOptions{});
    ASSERT_TRUE(result.ran);
    EXPECT_EQ(result.after, "<_k.cu_11> ptx:del(7)");
    ASSERT_EQ(result.steps.size(), 4u);
    EXPECT_EQ(result.steps[1].item, "ptx:del(7)");
    EXPECT_FALSE(result.steps[1].removed);
    EXPECT_EQ(result.steps[2].item, "ptx:swap(3,4)");
    EXPECT_TRUE(result.steps[2].removed);
    EXPECT_EQ(result.steps[3].item, "ptx:opnd(9,1,%r4)");
    EXPECT_TRUE(result.steps[3].removed);
}

}  // namespace
}  // namespace gi
