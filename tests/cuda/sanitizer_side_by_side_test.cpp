// Issue 19: racecheck and synccheck sessions run a batch's barrier-removing variants at once
// (--sanitize-side-by-side); a request that does not pass judges nothing, and its variants are
// checked again one a request, so a verdict is still a single variant's own. Through the fake
// worker (tests/support/fake_worker.cpp), which logs each side-by-side request.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../support/fake_worker_fixture.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

class SanitizerSideBySide : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kBarrierScaleKernel, "256,1024"); }
    void TearDown() override {
        ::unsetenv("GI_FAKE_REPORT_TOOL");
        FakeWorkerEvaluatorTest::TearDown();
    }

    CudaEvaluatorOptions gate_options() const {
        CudaEvaluatorOptions o = options(0);
        o.gate_guard_kib = 0;  // compute-sanitizer's sessions alone
        // A process of its own (none is expected) would pass its variants.
        o.sanitizer = session_sanitizer("echo \"gi-worker: ran $(grep -c . \"$list\") variant(s)\"\nexit 0\n");
        o.sanitize_jobs = 1;
        o.sanitize_sessions = 4;  // memcheck 4, racecheck and synccheck 1 each
        return o;
    }

    // The kernel without its barrier (so racecheck and synccheck check it), `expression` in place
    // of the output's, at `block` threads.
    Variant without_barrier(const std::string& expression, const std::string& block = "256") const {
        Variant v = with_block(block);
        v.source.replace(v.source.find("__syncthreads();"), 16, "");
        v.source.replace(v.source.find("2.0f * tile[threadIdx.x]"), 24, expression);
        v.key = sha256_hex(v.source);
        return v;
    }

    // The side-by-side requests the fake workers logged: "checker:variants:at once".
    std::vector<std::string> side_by_side_requests() const {
        std::vector<std::string> out;
        for (const gpu_test::FakeWorkerEvent& e : events())
            if (e.what == "side-by-side") out.push_back(e.slot + ":" + e.detail);
        return out;
    }
};

TEST_F(SanitizerSideBySide, SlowCheckersRunABatchsVariantsInOneRequest) {
    CudaEvaluator e(grammar_, gate_options());
    const std::vector<EvalResult> results = e.sanitize_many(
        {without_barrier("3.0f * tile[threadIdx.x]"), with_block("256"), without_barrier("4.0f * tile[threadIdx.x]"),
         without_barrier("5.0f * tile[threadIdx.x]")},
        0);
    ASSERT_EQ(results.size(), 4u);
    for (const EvalResult& r : results) EXPECT_EQ(r.status, EvalStatus::Ok) << r.detail;
    // The three that removed the barrier: one racecheck request, then one synccheck request.
    EXPECT_EQ(side_by_side_requests(), (std::vector<std::string>{"racecheck:3:8", "synccheck:3:8"}));
    const SanitizerGateStats& gate = e.stats().gate;
    EXPECT_EQ(gate.side_by_side_requests, 2);
    EXPECT_EQ(gate.side_by_side_variants, 6);
    EXPECT_EQ(gate.side_by_side_failed, 0);
    EXPECT_EQ(gate.tool_variants.at("racecheck"), 3);
    EXPECT_EQ(gate.session_passes, 4);
    bool noted = false;
    for (const std::string& note : e.run_notes())
        noted = noted || note.find("2 racecheck/synccheck requests ran 6 variants side by side") != std::string::npos;
    EXPECT_TRUE(noted);
}

TEST_F(SanitizerSideBySide, ARequestThatDoesNotPassIsCheckedAgainOneVariantARequest) {
    // Racecheck (only) reports on the 1024-thread launch: the request of all three does not pass
    // and names no variant; one a request, the report judges that variant alone.
    ::setenv("GI_FAKE_REPORT_TOOL", "racecheck", 1);
    CudaEvaluator e(grammar_, gate_options());
    const std::vector<EvalResult> results =
        e.sanitize_many({without_barrier("3.0f * tile[threadIdx.x]"), without_barrier("4.0f * tile[threadIdx.x]", "1024"),
                         without_barrier("5.0f * tile[threadIdx.x]")},
                        0);
    ASSERT_EQ(results.size(), 3u);
    EXPECT_EQ(results[0].status, EvalStatus::Ok) << results[0].detail;
    EXPECT_EQ(results[1].status, EvalStatus::SanitizerError) << results[1].detail;
    EXPECT_NE(results[1].detail.find("Invalid __global__ read"), std::string::npos) << results[1].detail;
    EXPECT_EQ(results[2].status, EvalStatus::Ok) << results[2].detail;
    // Synccheck then gets the two that passed racecheck, side by side.
    EXPECT_EQ(side_by_side_requests(), (std::vector<std::string>{"racecheck:3:8", "synccheck:2:8"}));
    const SanitizerGateStats& gate = e.stats().gate;
    EXPECT_EQ(gate.side_by_side_failed, 1);
    EXPECT_EQ(gate.session_judged, 1);
    EXPECT_EQ(gate.tool_variants.at("racecheck"), 6);  // 3 together, then 3 one a request
}

TEST_F(SanitizerSideBySide, OneAtATimeWhenAskedSo) {
    CudaEvaluatorOptions o = gate_options();
    o.sanitize_side_by_side = 1;
    CudaEvaluator e(grammar_, o);
    const std::vector<EvalResult> results =
        e.sanitize_many({without_barrier("3.0f * tile[threadIdx.x]"), without_barrier("4.0f * tile[threadIdx.x]")}, 0);
    for (const EvalResult& r : results) EXPECT_EQ(r.status, EvalStatus::Ok) << r.detail;
    EXPECT_TRUE(side_by_side_requests().empty());
    EXPECT_EQ(e.stats().gate.side_by_side_requests, 0);
    EXPECT_EQ(e.stats().gate.tool_variants.at("racecheck"), 2);
}

}  // namespace
}  // namespace gi
