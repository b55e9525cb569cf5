// kernels/frame_corr: the generated signals are what its comment says (b an echo of a, quieter and
// delayed), and the CPU reference sums each frame's products.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "frame_corr/reference.hpp"

namespace gi::corr {
namespace {

TEST(FrameCorrReference, SumsEachFramesProductsAndTheEchoCorrelates) {
    const CorrProblem p = make_corr_problem(40, 64, 5);
    ASSERT_EQ(p.a.size(), 40u * 64u);
    ASSERT_EQ(p.b.size(), p.a.size());
    const std::vector<float> out = frame_corr_reference(p);
    ASSERT_EQ(out.size(), 40u);
    for (int f : {0, 17, 39}) {
        double sum = 0;
        for (int k = f * 64; k < (f + 1) * 64; ++k) sum += double(p.a[k]) * p.b[k];
        EXPECT_NEAR(out[f], sum, 1e-4 * std::max(1.0, std::abs(sum))) << "frame " << f;
    }
    EXPECT_EQ(make_corr_problem(40, 64, 5).b, p.b) << "the same seed gives the same signals";
    EXPECT_NE(make_corr_problem(40, 64, 6).a, p.a);
}

TEST(FrameCorrReference, RefusesSizesOutOfRange) {
    EXPECT_THROW(make_corr_problem(0, 4, 1), std::invalid_argument);
    EXPECT_THROW(make_corr_problem(4, 0, 1), std::invalid_argument);
    EXPECT_THROW(make_corr_problem(1 << 16, 1 << 13, 1), std::invalid_argument);  // 2^29 samples
    EXPECT_NO_THROW(make_corr_problem(1, 1, 1));
}

}  // namespace
}  // namespace gi::corr
