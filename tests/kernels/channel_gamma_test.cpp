// kernels/channel_gamma: the generated frame is what its comment says (values in [0, 1), one gain a
// column in [0.5, 2], gamma 1/2.2, the same for a seed) and the CPU reference scales each column by
// powf(gain, gamma).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "channel_gamma/reference.hpp"

namespace gi::gamma {
namespace {

TEST(ChannelGammaReference, ScalesEachColumnByItsGainGammaCorrected) {
    // By hand: gains 4 and 9 to the power 1/2 are 2 and 3.
    GammaProblem hand;
    hand.rows = 2;
    hand.cols = 2;
    hand.gamma = 0.5f;
    hand.frame = {1.0f, 2.0f, 0.25f, 0.5f};
    hand.channel_gain = {4.0f, 9.0f};
    const std::vector<float> small = channel_gamma_reference(hand);
    ASSERT_EQ(small.size(), 4u);
    EXPECT_FLOAT_EQ(small[0], 2.0f);
    EXPECT_FLOAT_EQ(small[1], 6.0f);
    EXPECT_FLOAT_EQ(small[2], 0.5f);
    EXPECT_FLOAT_EQ(small[3], 1.5f);

    const GammaProblem p = make_gamma_problem(7, 13, 9);
    ASSERT_EQ(p.frame.size(), 7u * 13u);
    ASSERT_EQ(p.channel_gain.size(), 13u);
    EXPECT_EQ(p.gamma, 1.0f / 2.2f);
    for (float v : p.frame) {
        EXPECT_GE(v, 0.0f);
        EXPECT_LT(v, 1.0f);
    }
    for (float g : p.channel_gain) {
        EXPECT_GE(g, 0.5f);
        EXPECT_LE(g, 2.0f);
    }
    const std::vector<float> out = channel_gamma_reference(p);
    ASSERT_EQ(out.size(), p.frame.size());
    for (const auto& [r, c] : {std::pair{0, 0}, std::pair{0, 12}, std::pair{3, 5}, std::pair{6, 12}}) {
        const std::size_t n = static_cast<std::size_t>(r * 13 + c);
        const float g = powf(p.channel_gain[static_cast<std::size_t>(c)], 1.0f / 2.2f);
        EXPECT_EQ(out[n], p.frame[n] * g) << "row " << r << " col " << c;
        // The same as double arithmetic to float precision: gain^(1/2.2), not gain or gain^2.2.
        EXPECT_NEAR(out[n], p.frame[n] * std::pow(double(p.channel_gain[static_cast<std::size_t>(c)]), 1 / 2.2), 1e-6);
    }
}

TEST(ChannelGammaReference, TheProblemIsTheSameForASeed) {
    const GammaProblem a = make_gamma_problem(5, 11, 3);
    const GammaProblem b = make_gamma_problem(5, 11, 3);
    EXPECT_EQ(a.frame, b.frame);
    EXPECT_EQ(a.channel_gain, b.channel_gain);
    EXPECT_NE(make_gamma_problem(5, 11, 4).frame, a.frame);
}

TEST(ChannelGammaReference, RefusesSizesOutOfRange) {
    EXPECT_THROW(make_gamma_problem(0, 1, 1), std::invalid_argument);
    EXPECT_THROW(make_gamma_problem(1, 0, 1), std::invalid_argument);
    EXPECT_THROW(make_gamma_problem((1 << 20) + 1, 1, 1), std::invalid_argument);
    EXPECT_THROW(make_gamma_problem(1, (1 << 20) + 1, 1), std::invalid_argument);
    EXPECT_THROW(make_gamma_problem(1 << 20, 1 << 9, 1), std::invalid_argument) << "2^29 elements";
    try {
        make_gamma_problem(5, -3, 1);
        FAIL() << "cols -3 accepted";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("cols -3"), std::string::npos) << e.what();
    }
    EXPECT_NO_THROW(make_gamma_problem(1, 1, 1));
}

}  // namespace
}  // namespace gi::gamma
