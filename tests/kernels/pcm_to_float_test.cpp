// kernels/pcm_to_float: the generated recording is what its comment says (16-bit, a DC offset the
// problem measures) and the CPU reference maps full scale to [-1, 1) around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "pcm_to_float/reference.hpp"

namespace gi::pcm {
namespace {

TEST(PcmToFloatReference, TheOffsetIsTheMeanAndFullScaleMapsIntoUnitRange) {
    const PcmProblem p = make_pcm_problem(5000, 9);
    ASSERT_EQ(p.samples.size(), 5000u);
    double sum = 0;
    for (short s : p.samples) sum += s;
    EXPECT_NEAR(p.dc_offset, sum / 5000, 1e-3);
    const std::vector<float> out = pcm_to_float_reference(p);
    double mean = 0;
    for (float v : out) {
        EXPECT_GE(v, -1.05f);
        EXPECT_LE(v, 1.05f);
        mean += v;
    }
    EXPECT_NEAR(mean / 5000, 0.0, 1e-6) << "the DC offset is removed";
    EXPECT_GT(*std::max_element(out.begin(), out.end()), 0.5f) << "a loud tone";
    EXPECT_EQ(make_pcm_problem(5000, 9).samples, p.samples);
}

TEST(PcmToFloatReference, RefusesCountsOutOfRange) {
    EXPECT_THROW(make_pcm_problem(0, 1), std::invalid_argument);
    EXPECT_NO_THROW(make_pcm_problem(1, 1));
}

}  // namespace
}  // namespace gi::pcm
