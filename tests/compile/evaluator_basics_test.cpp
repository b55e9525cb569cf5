#include <gtest/gtest.h>

#include "evaluate/evaluator.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

TEST(EvalStatusText, RoundTripsEveryStatus) {
    for (EvalStatus s : {EvalStatus::Ok, EvalStatus::CompileError, EvalStatus::Crash, EvalStatus::Timeout,
                         EvalStatus::SanitizerError, EvalStatus::WrongAnswer})
        EXPECT_EQ(eval_status_from_string(to_string(s)), s);
    EXPECT_EQ(to_string(EvalStatus::CompileError), "compile-error");
    EXPECT_EQ(to_string(EvalStatus::Ok), "ok");
}

TEST(EvalStatusText, UnknownTextListsTheKnownOnes) {
    try {
        eval_status_from_string("compiled");
        FAIL();
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("'compiled'"), std::string::npos) << m;
        EXPECT_NE(m.find("sanitizer-error"), std::string::npos) << m;
    }
    EXPECT_THROW(eval_status_from_string(""), Error);
    EXPECT_THROW(eval_status_from_string("OK"), Error);
}

TEST(SummariseTimings, MedianAndScaledMedianAbsoluteDeviation) {
    const Timing t = summarise_timings({1.0, 2.0, 3.0, 4.0, 100.0});
    EXPECT_DOUBLE_EQ(t.median_ms, 3.0);
    EXPECT_DOUBLE_EQ(t.spread_ms, 1.4826 * 1.0);  // deviations 2,1,0,1,97 -> median 1
    EXPECT_EQ(t.repetitions, 5);
    EXPECT_TRUE(t.valid());
}

TEST(SummariseTimings, EvenCountAveragesTheMiddlePair) {
    const Timing t = summarise_timings({4.0, 1.0, 3.0, 2.0});
    EXPECT_DOUBLE_EQ(t.median_ms, 2.5);
    EXPECT_DOUBLE_EQ(t.spread_ms, 1.4826 * 1.0);  // deviations 1.5,1.5,0.5,0.5 -> 1.0
}

TEST(SummariseTimings, SingleAndIdenticalSamplesHaveNoSpread) {
    EXPECT_DOUBLE_EQ(summarise_timings({7.5}).median_ms, 7.5);
    EXPECT_DOUBLE_EQ(summarise_timings({7.5}).spread_ms, 0.0);
    EXPECT_DOUBLE_EQ(summarise_timings({2, 2, 2}).spread_ms, 0.0);
}

TEST(SummariseTimings, NoSamplesIsAnInvalidTiming) {
    const Timing t = summarise_timings({});
    EXPECT_FALSE(t.valid());
    EXPECT_EQ(t.repetitions, 0);
}

TEST(SummariseTimings, RejectsImpossibleSamples) {
    EXPECT_THROW(summarise_timings({1.0, NAN}), Error);
    EXPECT_THROW(summarise_timings({1.0, INFINITY}), Error);
    EXPECT_THROW(summarise_timings({-0.5}), Error);
}

}  // namespace
}  // namespace gi
