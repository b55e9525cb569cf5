// The batch's yardstick (cuda/original_yardstick.hpp): the original timed before a batch's
// variants and again after them, the faster timing kept, so one slow outlier of a microsecond
// kernel's timing does not make every variant of its batch look faster (on the H200 a dp_sweep
// generation's original measured 2.4x its usual time, and its variants were "accepted" up to a
// phantom 3.17x). Pure rule first, then through the evaluator with the fake worker
// (tests/support/fake_worker.cpp, $GI_FAKE_ORIGINAL_TIMES_MS).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "../support/fake_worker_fixture.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "cuda/original_yardstick.hpp"
#include "fitness/acceptance.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

Timing yardstick_timing(double median, double spread) { return Timing{median, spread, 10}; }

TEST(OriginalYardstick, TheFasterTimingIsKeptWithItsOwnSpread) {
    const OriginalYardstick slow_first = original_yardstick(yardstick_timing(0.0108, 0.0017), yardstick_timing(0.0043, 0.0001));
    EXPECT_EQ(slow_first.timing.median_ms, 0.0043);
    EXPECT_EQ(slow_first.timing.spread_ms, 0.0001);
    EXPECT_EQ(slow_first.slower, SlowerTiming::Opening);
    const OriginalYardstick slow_second = original_yardstick(yardstick_timing(0.0043, 0.0001), yardstick_timing(0.0108, 0.0017));
    EXPECT_EQ(slow_second.timing.median_ms, 0.0043);
    EXPECT_EQ(slow_second.timing.spread_ms, 0.0001);
    EXPECT_EQ(slow_second.slower, SlowerTiming::Closing);
}

TEST(OriginalYardstick, ADifferenceWithinThreeTimesTheCombinedSpreadIsNoise) {
    // 3 x sqrt(0.3^2 + 0.4^2) = 1.5 ms.
    const OriginalYardstick within = original_yardstick(yardstick_timing(11.4, 0.3), yardstick_timing(10, 0.4));
    EXPECT_EQ(within.timing.median_ms, 10);  // still the faster one
    EXPECT_EQ(within.slower, SlowerTiming::Neither);
    EXPECT_EQ(original_yardstick(yardstick_timing(10, 0.3), yardstick_timing(11.6, 0.4)).slower, SlowerTiming::Closing);
    // A missing spread counts as none.
    EXPECT_EQ(original_yardstick(yardstick_timing(10.1, NAN), yardstick_timing(10, NAN)).slower, SlowerTiming::Opening);
}

TEST(OriginalYardstick, AnInvalidTimingNeverWins) {
    const OriginalYardstick no_closing = original_yardstick(yardstick_timing(2, 0.1), Timing{});
    EXPECT_EQ(no_closing.timing.median_ms, 2);
    EXPECT_EQ(no_closing.slower, SlowerTiming::Neither);
    EXPECT_EQ(original_yardstick(Timing{}, yardstick_timing(3, 0.1)).timing.median_ms, 3);
}

// The cuda evaluator with the fake worker: variants take 2 ms, the original's timed runs the
// times $GI_FAKE_ORIGINAL_TIMES_MS lists in turn.
class TwiceTimedOriginal : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override {
        set_up(gpu_test::kScaleKernel, "256,1024");
        ::setenv("GI_FAKE_TIME_MS", "2", 1);
    }
    void TearDown() override {
        ::unsetenv("GI_FAKE_TIME_MS");
        ::unsetenv("GI_FAKE_ORIGINAL_TIMES_MS");
        ::unsetenv("GI_FAKE_ORIGINAL_CRASHES_AT");
        FakeWorkerEvaluatorTest::TearDown();
    }

    long originals_timed() const {
        const std::vector<gpu_test::FakeWorkerEvent> log = events();
        return std::count_if(log.begin(), log.end(), [](const gpu_test::FakeWorkerEvent& e) { return e.what == "original-timed"; });
    }

    // Whether the batch's one variant would be a parent (as search judges it) and its speedup.
    static bool accepted(const BatchResult& r) {
        return is_accepted(r.results.at(0), original_for(r.results.at(0), r.original), AcceptanceRule{});
    }

    static std::string time_note(const CudaEvaluator& e) {
        for (const std::string& note : e.run_notes())
            if (note.find("cuda evaluator time: ") != std::string::npos) return note;
        return "";
    }
};

// The first timing of the batch is the slow outlier: the variant at 2 ms is slower than the
// original's real 1 ms, not a 1.5x speedup over the outlier's 3 ms.
TEST_F(TwiceTimedOriginal, ASlowFirstTimingIsNotTheYardstick) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORIGINAL_TIMES_MS", "3,1", 1);
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({with_block("1024")}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    ASSERT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[0].time.median_ms, 2);
    EXPECT_EQ(r.original.median_ms, 1);
    EXPECT_FALSE(accepted(r));
    EXPECT_LT(speedup(r.original, r.results[0].time), 1);
    EXPECT_EQ(originals_timed(), 2);
    EXPECT_EQ(e.stats().originals_timed_twice, 1);
    EXPECT_EQ(e.stats().original_first_slower, 1);
    EXPECT_EQ(e.stats().original_second_slower, 0);
    const std::string note = time_note(e);
    EXPECT_NE(note.find("original runs "), std::string::npos) << note;
    EXPECT_NE(note.find("(timed twice in 1 batches, the faster kept: 1 times the first was slower beyond noise, 0 times "
                        "the second; of which readying"),
              std::string::npos)
        << note;
}

// The reverse: the closing timing is the outlier, and the opening one stays the yardstick.
TEST_F(TwiceTimedOriginal, ASlowSecondTimingIsNotTheYardstickEither) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORIGINAL_TIMES_MS", "1,3", 1);
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({with_block("1024")}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    ASSERT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.original.median_ms, 1);
    EXPECT_FALSE(accepted(r));
    EXPECT_EQ(e.stats().original_first_slower, 0);
    EXPECT_EQ(e.stats().original_second_slower, 1);
    EXPECT_NE(time_note(e).find("0 times the first was slower beyond noise, 1 times the second"), std::string::npos) << time_note(e);
}

// Each batch is timed twice on its own: the next batch's opening timing follows the last one's closing.
TEST_F(TwiceTimedOriginal, EveryBatchTimesItsOriginalTwice) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORIGINAL_TIMES_MS", "1,1,3,1", 1);
    CudaEvaluator e(grammar_, options(0));
    EXPECT_EQ(e.evaluate({with_block("1024")}, 0).original.median_ms, 1);
    EXPECT_EQ(e.evaluate({with_block("1024")}, 0).original.median_ms, 1);
    EXPECT_EQ(originals_timed(), 4);
    EXPECT_EQ(e.stats().originals_timed_twice, 2);
    EXPECT_EQ(e.stats().original_first_slower, 1);
}

// A batch that timed no variant (here a compile error) has nothing to compare: one timing.
TEST_F(TwiceTimedOriginal, ABatchThatTimedNoVariantTimesItOnce) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORIGINAL_TIMES_MS", "3,1", 1);
    CudaEvaluator e(grammar_, options(0));
    const std::string broken = "__global__ void scale(float* out, const float* in, int n) { not cuda }\n";
    const BatchResult r = e.evaluate({Variant{Genome{}, broken, {}, sha256_hex(broken)}}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::CompileError);
    EXPECT_EQ(originals_timed(), 1);
    EXPECT_EQ(e.stats().originals_timed_twice, 0);
    EXPECT_EQ(time_note(e).find("timed twice"), std::string::npos) << time_note(e);
}

// --original-once: the old way, for A/B, with the outlier it lets through.
TEST_F(TwiceTimedOriginal, OriginalOnceTimesItOnlyBeforeTheVariants) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORIGINAL_TIMES_MS", "3,1", 1);
    CudaEvaluatorOptions o = options(0);
    o.original_once = true;
    CudaEvaluator e(grammar_, o);
    const BatchResult r = e.evaluate({with_block("1024")}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.original.median_ms, 3);
    EXPECT_TRUE(accepted(r));
    EXPECT_EQ(originals_timed(), 1);
    EXPECT_EQ(e.stats().originals_timed_twice, 0);
}

// The closing timing is best effort: when the original cannot be run again after the batch's
// variants (here its worker crashes on its second timed run, every worker's), the batch keeps its
// opening timing, the variants judged against it, and the run notes say so. Before, the batch
// and the search with it ended in an error.
TEST_F(TwiceTimedOriginal, AFailingSecondTimingKeepsTheFirst) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_ORIGINAL_TIMES_MS", "1", 1);
    ::setenv("GI_FAKE_ORIGINAL_CRASHES_AT", "2", 1);
    CudaEvaluator e(grammar_, options(0));
    for (int batch = 0; batch < 2; ++batch) {
        const BatchResult r = e.evaluate({with_block("1024")}, 0);
        ASSERT_EQ(r.results.size(), 1u);
        EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
        EXPECT_EQ(r.original.median_ms, 1);
        EXPECT_EQ(r.results[0].time.median_ms, 2);
    }
    EXPECT_EQ(e.stats().original_closing_failed, 2);
    EXPECT_NE(e.stats().original_closing_failure.find("the original kernel did not run"), std::string::npos)
        << e.stats().original_closing_failure;
    const std::string note = time_note(e);
    EXPECT_NE(note.find("the second timing failed in 2 batches, which kept the first (the first failure: "), std::string::npos)
        << note;
    // The opening timing fails as it always has: there is no yardstick to judge against.
    ::setenv("GI_FAKE_ORIGINAL_CRASHES_AT", "1", 1);
    CudaEvaluator first_fails(grammar_, options(0));
    EXPECT_THROW(first_fails.evaluate({with_block("1024")}, 0), Error);
}

}  // namespace
}  // namespace gi
