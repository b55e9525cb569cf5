// kernels/conv1d: the generated filter is the normalised Gaussian its comment says, and the CPU
// reference sums the 17 taps around each sample with zeros outside the signal.
#include <gtest/gtest.h>

#include <numeric>
#include <stdexcept>

#include "conv1d/reference.hpp"

namespace gi::conv1d {
namespace {

TEST(Conv1dReference, TheFilterIsNormalisedAndTheEdgesSeeZeros) {
    const ConvProblem p = make_conv_problem(100, 5);
    ASSERT_EQ(p.signal.size(), 100u);
    ASSERT_EQ(p.taps.size(), static_cast<std::size_t>(kTaps));
    EXPECT_NEAR(std::accumulate(p.taps.begin(), p.taps.end(), 0.0), 1.0, 1e-6);
    EXPECT_FLOAT_EQ(p.taps[0], p.taps[kTaps - 1]) << "symmetric";
    const std::vector<double> out = conv1d_reference(p);
    double middle = 0, first = 0;
    for (int k = -kRadius; k <= kRadius; ++k) {
        middle += double(p.taps[static_cast<std::size_t>(k + kRadius)]) * p.signal[static_cast<std::size_t>(50 + k)];
        if (k >= 0) first += double(p.taps[static_cast<std::size_t>(k + kRadius)]) * p.signal[static_cast<std::size_t>(k)];
    }
    EXPECT_DOUBLE_EQ(out[50], middle);
    EXPECT_DOUBLE_EQ(out[0], first) << "samples before the signal count as zero";
    EXPECT_EQ(make_conv_problem(100, 5).signal, p.signal);
}

TEST(Conv1dReference, RefusesSizesOutOfRange) {
    EXPECT_THROW(make_conv_problem(0, 1), std::invalid_argument);
    EXPECT_NO_THROW(make_conv_problem(1, 1));
}

}  // namespace
}  // namespace gi::conv1d
