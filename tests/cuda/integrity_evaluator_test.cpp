// The cuda evaluator's handling of a variant that wrote outside its buffers, without a GPU:
// gi_tests stands in for gi-worker (tests/support/fake_worker.cpp, mode "replay"; block size 32 = a
// variant whose run changed the worker's own copies of the case). It must be a Crash whatever its
// outputs, counted as corrupting, and the next variant must run in a fresh worker, never on the
// damaged one.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "../support/fake_worker_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

class IntegrityEvaluator : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "32,64,128,256,512,1024"); }
    CudaEvaluatorOptions options() const { return FakeWorkerEvaluatorTest::options(1); }

    // The fake workers' variant runs in order, as "<pid> <block>".
    std::vector<std::pair<std::string, std::string>> variant_runs() const {
        std::vector<std::pair<std::string, std::string>> out;
        for (const gpu_test::FakeWorkerEvent& e : events())
            if (e.what == "variant" && !e.detail.empty()) out.emplace_back(e.pid, e.detail);
        return out;
    }
};

TEST_F(IntegrityEvaluator, CorruptingVariantIsACrashAndTheNextRunsInAFreshWorker) {
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({with_block("256"), with_block("32"), with_block("1024")}, 0);
    ASSERT_EQ(r.results.size(), 3u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Crash) << r.results[1].detail;
    EXPECT_NE(r.results[1].detail.find("wrote outside its buffers"), std::string::npos) << r.results[1].detail;
    EXPECT_FALSE(r.results[1].time.valid());
    EXPECT_EQ(r.results[2].status, EvalStatus::Ok) << r.results[2].detail;
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.runs.corrupting, 1);
    EXPECT_EQ(s.workers.worker_restarts, 1);
    EXPECT_EQ(s.runs.timeouts, 0);
    EXPECT_EQ(s.runs.loop_overruns, 0);
    EXPECT_EQ(s.runs.staged_runs, 3);
    EXPECT_DOUBLE_EQ(s.runs.stage_integrity_ms, 0.75);  // 0.25 per run, the corrupting one's included
    // The variant after the corrupting one ran in another worker than the two before it.
    const auto runs = variant_runs();
    ASSERT_EQ(runs.size(), 3u);
    EXPECT_EQ(runs[0].second, "256,1,1");
    EXPECT_EQ(runs[1].second, "32,1,1");
    EXPECT_EQ(runs[0].first, runs[1].first);
    EXPECT_NE(runs[2].first, runs[1].first);
}

TEST_F(IntegrityEvaluator, CorruptingVariantIsNotCountedOtherwise) {
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({with_block("32")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Crash) << r.results[0].detail;
    EXPECT_EQ(e.stats().runs.corrupting, 1);
    EXPECT_EQ(e.stats().runs.timeouts, 0);
    // A plain crash (block 128 aborts the fake worker) is no corrupting variant.
    EXPECT_EQ(e.evaluate({with_block("128")}, 0).results[0].status, EvalStatus::Crash);
    EXPECT_EQ(e.stats().runs.corrupting, 1);
    const BatchResult next = e.evaluate({with_block("256")}, 0);
    EXPECT_EQ(next.results[0].status, EvalStatus::Ok) << next.results[0].detail;
    EXPECT_EQ(e.stats().workers.worker_restarts, 2);  // one per failed worker
}

}  // namespace
}  // namespace gi
