#include "fitness/acceptance.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../support/search_test_support.hpp"

namespace gi {
namespace {

using testing::ok_in;

TEST(Acceptance, FasterBeyondTheCombinedNoiseIsAccepted) {
    const Timing original{1.0, 0.03, 5};
    const AcceptanceRule rule{0, 1};
    // Combined noise sqrt(0.03^2 + 0.04^2) = 0.05: a gain just above 0.05 is enough, 0.049 is not.
    EXPECT_TRUE(is_accepted(ok_in(0.9499, 0.04), original, rule));
    EXPECT_FALSE(is_accepted(ok_in(0.951, 0.04), original, rule));
    EXPECT_NEAR(combined_spread(original, Timing{0.95, 0.04, 5}), 0.05, 1e-12);
}

TEST(Acceptance, NoiseKScalesTheMargin) {
    const Timing original{1.0, 0.03, 5};
    EXPECT_TRUE(is_accepted(ok_in(0.89, 0.04), original, {0, 2}));
    EXPECT_FALSE(is_accepted(ok_in(0.91, 0.04), original, {0, 2}));
}

TEST(Acceptance, WithZeroNoiseOrKTheVariantMustStillBeStrictlyFaster) {
    const Timing original{1.0, 0, 5};
    EXPECT_FALSE(is_accepted(ok_in(1.0, 0), original, {0, 1}));
    EXPECT_FALSE(is_accepted(ok_in(1.0, 0.5), original, {0, 0}));
    EXPECT_TRUE(is_accepted(ok_in(0.999, 0.5), original, {0, 0}));
}

TEST(Acceptance, ErrorAboveTheAllowedIsRejected) {
    const Timing original{1.0, 0, 5};
    EXPECT_FALSE(is_accepted(ok_in(0.5, 0, 0.1), original, {0, 1}));
    EXPECT_TRUE(is_accepted(ok_in(0.5, 0, 0.1), original, {0.1, 1}));
    EXPECT_FALSE(is_accepted(ok_in(0.5, 0, 0.11), original, {0.1, 1}));
    EXPECT_FALSE(is_accepted(ok_in(0.5, 0, NAN), original, {1e9, 1}));
}

TEST(Acceptance, FailuresAndMissingTimingsAreNeverAccepted) {
    const Timing original{1.0, 0, 5};
    for (EvalStatus status : {EvalStatus::CompileError, EvalStatus::Crash, EvalStatus::Timeout,
                              EvalStatus::SanitizerError, EvalStatus::WrongAnswer}) {
        EvalResult result = ok_in(0.1);
        result.status = status;
        EXPECT_FALSE(is_accepted(result, original, {0, 0})) << to_string(status);
    }
    EvalResult untimed;  // compile-only: Ok but no timing
    EXPECT_FALSE(is_accepted(untimed, original, {0, 0}));
    EXPECT_FALSE(is_accepted(ok_in(0.1), Timing{}, {0, 0}));
}

TEST(Acceptance, MissingSpreadCountsAsZero) {
    EXPECT_TRUE(is_accepted(ok_in(0.99, NAN), Timing{1.0, NAN, 1}, {0, 1}));
    EXPECT_EQ(combined_spread(Timing{1, NAN, 1}, Timing{1, NAN, 1}), 0);
}

TEST(Acceptance, SpeedupAndSlowerBeyondUncertainty) {
    EXPECT_DOUBLE_EQ(speedup(Timing{2.0, 0, 1}, Timing{0.5, 0, 1}), 4.0);
    EXPECT_EQ(speedup(Timing{2.0, 0, 1}, Timing{}), 0);
    EXPECT_EQ(speedup(Timing{2.0, 0, 1}, Timing{0, 0, 1}), 0);
    // The medians' uncertainties are compared, not the samples' spreads (0.5 here, which would
    // hide both): 3 x sqrt(0.01^2 + 0.01^2) = 0.0424...
    const Timing reference{1.0, 0.5, 30};
    EXPECT_FALSE(slower_beyond_uncertainty(Timing{1.04, 0.5, 30}, 0.01, reference, 0.01, 3));
    EXPECT_TRUE(slower_beyond_uncertainty(Timing{1.05, 0.5, 30}, 0.01, reference, 0.01, 3));
    EXPECT_FALSE(slower_beyond_uncertainty(Timing{0.5, 0.5, 30}, 0.01, reference, 0.01, 3));
    EXPECT_TRUE(slower_beyond_uncertainty(Timing{}, 0.01, reference, 0.01, 3));
    // A missing uncertainty counts as zero: any loss is beyond it.
    EXPECT_TRUE(slower_beyond_uncertainty(Timing{1.001, 0.5, 30}, NAN, reference, NAN, 3));
}

}  // namespace
}  // namespace gi
