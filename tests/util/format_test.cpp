#include "util/format.hpp"

#include <gtest/gtest.h>

#include <limits>

namespace gi {
namespace {

TEST(Format, FixedRoundsToTheGivenDecimals) {
    EXPECT_EQ(fixed(1.23456, 3), "1.235");
    EXPECT_EQ(fixed(2.0, 1), "2.0");
    EXPECT_EQ(fixed(1e20, 1), "100000000000000000000.0");
}

TEST(Format, FixedOrDashShowsADashForWhatIsNotANumber) {
    EXPECT_EQ(fixed_or_dash(0.25, 2), "0.25");
    EXPECT_EQ(fixed_or_dash(std::numeric_limits<double>::quiet_NaN(), 2), "-");
    EXPECT_EQ(fixed_or_dash(std::numeric_limits<double>::infinity(), 2), "-");
    EXPECT_EQ(fixed(std::numeric_limits<double>::infinity(), 2), "inf");
}

}  // namespace
}  // namespace gi
