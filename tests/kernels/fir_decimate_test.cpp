// kernels/fir_decimate: the CPU reference is the filter it claims to be (a unit-gain low-pass whose
// phases add up to the whole filter) and sums as the kernel does, and the inputs are checked.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "fir_decimate/reference.hpp"

namespace gi::fir {
namespace {

TEST(FirDecimateReference, ThePhasesAddUpToTheWholeUnitGainFilter) {
    const FilterProblem p = make_filter_problem(200, 3, 61, 4, 5);
    EXPECT_EQ(p.signal.size(), 200u * 3 + 61);
    double gain = 0;
    for (float t : p.taps) gain += t;
    EXPECT_NEAR(gain, 1.0, 0.02);  // a low-pass passes a constant signal
    std::vector<double> whole(200, 0.0);
    for (int phase = 0; phase < 4; ++phase) {
        const std::vector<float> part = fir_decimate_reference(p, phase);
        ASSERT_EQ(part.size(), 200u);
        for (int i = 0; i < 200; ++i) whole[i] += part[i];
    }
    for (int i = 0; i < 200; ++i) {
        double direct = 0;
        for (int t = 0; t < 61; ++t) direct += double(p.taps[t]) * p.signal[i * 3 + t];
        EXPECT_NEAR(whole[i], direct, 1e-5) << i;
    }
}

TEST(FirDecimateReference, RefusesSizesOutOfRange) {
    EXPECT_THROW(make_filter_problem(0, 3, 61, 4, 1), std::invalid_argument);
    EXPECT_THROW(make_filter_problem(10, 3, 4, 5, 1), std::invalid_argument);  // more phases than taps
    EXPECT_NO_THROW(make_filter_problem(1, 1, 1, 1, 1));
}

}  // namespace
}  // namespace gi::fir
