#include "util/format.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
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

// Run records, worker replies and logs carry numbers with exact(): every one reads back as the
// same double (a mean penalty of 6e-8 once arrived as 0 with six decimals).
TEST(Format, ExactReadsBackAsTheSameDouble) {
    for (const double value : {0.1, 6e-8, 1.0 / 3.0, 2.6724480743307408, -1e300, 5e-324, 0.0})
        EXPECT_EQ(std::strtod(exact(value).c_str(), nullptr), value) << exact(value);
    EXPECT_EQ(exact(std::numeric_limits<double>::quiet_NaN()), "nan");
    EXPECT_EQ(exact(-std::numeric_limits<double>::quiet_NaN()), "nan");
    EXPECT_EQ(exact(std::numeric_limits<double>::infinity()), "inf");
    EXPECT_EQ(exact(-std::numeric_limits<double>::infinity()), "-inf");
}

}  // namespace
}  // namespace gi
