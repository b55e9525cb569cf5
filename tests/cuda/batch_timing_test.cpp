// How many launches a timed repetition of a short kernel holds (cuda/cuda_evaluator.hpp).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../support/fake_worker_fixture.hpp"
#include "cuda/case_runner.hpp"
#include "cuda/cuda_evaluator.hpp"

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

namespace gi {
namespace {

// The cuda evaluator with the fake worker (tests/support/fake_worker.cpp), its kernel taking 0.05 ms.
class BatchTimingEvaluator : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void TearDown() override {
        ::unsetenv("GI_FAKE_TIME_MS");
        FakeWorkerEvaluatorTest::TearDown();
    }

    // "role:launches" of every batched request the fake worker saw.
    std::vector<std::string> batched() const {
        std::vector<std::string> out;
        for (const gpu_test::FakeWorkerEvent& e : events())
            if (e.what == "batched") out.push_back(e.detail);
        return out;
    }
};

// The original's first timing decides the batch (1 ms / 0.05 ms = 20 launches) and is taken again
// batched, so the original that variants are compared with was timed as they are; so is its
// second timing after the variants (cuda/original_yardstick.hpp).
TEST_F(BatchTimingEvaluator, AShortOriginalIsTimedAgainInBatchesAndSoIsEveryVariant) {
    set_up(gpu_test::kScaleKernel, "128,256");
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_TIME_MS", "0.05", 1);
    CudaEvaluator e(grammar_, options(0));
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.launches_per_time(0), 20);
    EXPECT_EQ(batched(), (std::vector<std::string>{"original:20", "variant:20", "original:20"}));
    bool noted = false;
    for (const std::string& note : e.run_notes()) noted = noted || note.find("launches per case: ") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST_F(BatchTimingEvaluator, ASwitchedOffBatchOrALongKernelIsTimedAlone) {
    set_up(gpu_test::kScaleKernel, "128,256");
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_TIME_MS", "0.05", 1);
    CudaEvaluatorOptions o = options(0);
    o.batch_timing_below_ms = 0;
    CudaEvaluator off(grammar_, o);
    EXPECT_EQ(off.evaluate({with_block("256")}, 0).results[0].status, EvalStatus::Ok);
    EXPECT_EQ(off.launches_per_time(0), 1);
    ::setenv("GI_FAKE_TIME_MS", "0.5", 1);
    CudaEvaluator long_kernel(grammar_, options(0));
    EXPECT_EQ(long_kernel.evaluate({with_block("256")}, 0).results[0].status, EvalStatus::Ok);
    EXPECT_EQ(long_kernel.launches_per_time(0), 1);
    EXPECT_TRUE(batched().empty());
}

}  // namespace
}  // namespace gi
