// How many launches a timed repetition of a short kernel holds (evaluate/cuda_evaluator.hpp).
#include <gtest/gtest.h>

#include "evaluate/cuda_evaluator.hpp"

namespace gi {
namespace {

TEST(BatchTiming, ShortKernelsAreTimedInBatchesOfAboutAMillisecond) {
    EXPECT_EQ(launches_per_time_for(0.062, 0.2), 17);  // row_filter's 62 us: 17 x 62 us
    EXPECT_EQ(launches_per_time_for(0.1, 0.2), 10);
    EXPECT_EQ(launches_per_time_for(0.001, 0.2), 64);  // at most 64
}

TEST(BatchTiming, LongerKernelsAndTheSwitchedOffCaseAreTimedAlone) {
    EXPECT_EQ(launches_per_time_for(0.2, 0.2), 1);
    EXPECT_EQ(launches_per_time_for(0.64, 0.2), 1);
    EXPECT_EQ(launches_per_time_for(0.062, 0), 1);  // --batch-timing-below-ms 0
    EXPECT_EQ(launches_per_time_for(0, 0.2), 1);    // no timing yet
}

}  // namespace
}  // namespace gi
