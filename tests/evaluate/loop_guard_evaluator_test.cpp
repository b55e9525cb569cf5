// The cuda evaluator's loop guard without a GPU: gi_tests stands in for gi-worker
// (tests/gpu/fake_worker.cpp, mode "replay"; block size 64 = a loop that runs away). The
// evaluator must compile a guarded build for variants with loops and send it in front of the
// plain one with the guard's budget; a loop the guard stops is a Timeout without a restart; with
// --no-loop-guard the same variant costs its worker; a guarded build that fails to compile leaves
// the variant checked unguarded, and counted.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "../gpu/fake_worker_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "evaluate/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/hash.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

const char* kKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    for (int k = 0; k < 1; k++)
        if (i < n) out[i] = 2.0f * in[i];
}
)";

class LoopGuardEvaluator : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(kKernel, "64,128,256,512"); }
    CudaEvaluatorOptions options() const { return FakeWorkerEvaluatorTest::options(1); }

    // Lines of the fake workers' log with this event, as "<event> <slot> <detail>".
    std::vector<std::string> logged(const std::string& event) const {
        std::vector<std::string> out;
        std::ifstream in(log_);
        std::string pid, what, rest;
        while (in >> pid >> what && std::getline(in, rest))
            if (what == event) out.push_back(what + rest);
        return out;
    }
};

TEST_F(LoopGuardEvaluator, RunawayLoopIsStoppedWithoutARestart) {
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({with_block("256"), with_block("64"), with_block("128")}, 0);
    ASSERT_EQ(r.results.size(), 3u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Timeout) << r.results[1].detail;
    EXPECT_NE(r.results[1].detail.find("loop guard stopped it"), std::string::npos) << r.results[1].detail;
    EXPECT_EQ(r.results[2].status, EvalStatus::Crash) << r.results[2].detail;  // block 128 crashes: one restart
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.loop_overruns, 1);
    EXPECT_EQ(s.worker_restarts, 0);  // the crash's replacement starts with the next request
    EXPECT_EQ(s.timeouts, 0);
    EXPECT_EQ(s.unguarded, 0);
    EXPECT_EQ(s.guard_compiled, 3);
    EXPECT_EQ(s.compiled, 6);  // three variants and their three guarded builds (the original is not counted)
    EXPECT_EQ(s.staged_runs, 2);
    EXPECT_DOUBLE_EQ(s.stage_compare_ms, 4);
    // The fake original's median is 1 ms: the guard's budget is 10 x 1 ms + 2 ms.
    const std::vector<std::string> guarded = logged("guarded");
    ASSERT_EQ(guarded.size(), 3u);
    for (const std::string& line : guarded) EXPECT_EQ(line, "guarded 0 12000");
    EXPECT_TRUE(logged("guard-malformed").empty());
    // The worker that ran the loop away is still the one working.
    const BatchResult next = e.evaluate({with_block("256")}, 0);
    EXPECT_EQ(next.results[0].status, EvalStatus::Ok) << next.results[0].detail;
    EXPECT_EQ(e.stats().worker_restarts, 1);  // only the crash's
}

TEST_F(LoopGuardEvaluator, GuardMarginSetsTheBudget) {
    CudaEvaluatorOptions o = options();
    o.guard_margin_ms = 5;
    o.timeout_factor = 3;
    CudaEvaluator e(grammar_, o);
    e.evaluate({with_block("256")}, 0);
    const std::vector<std::string> guarded = logged("guarded");
    ASSERT_EQ(guarded.size(), 1u);
    EXPECT_EQ(guarded[0], "guarded 0 8000");
}

TEST_F(LoopGuardEvaluator, WithoutTheGuardARunawayLoopCostsItsWorker) {
    CudaEvaluatorOptions o = options();
    o.loop_guard = false;
    CudaEvaluator e(grammar_, o);
    const BatchResult r = e.evaluate({with_block("64"), with_block("256")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Timeout) << r.results[0].detail;
    EXPECT_EQ(r.results[0].detail.find("loop guard"), std::string::npos) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
    EXPECT_EQ(e.stats().loop_overruns, 0);
    EXPECT_EQ(e.stats().timeouts, 1);
    EXPECT_EQ(e.stats().worker_restarts, 1);
    EXPECT_EQ(e.stats().guard_compiled, 0);
    EXPECT_TRUE(logged("guarded").empty());
}

TEST_F(LoopGuardEvaluator, GuardedBuildThatFailsLeavesTheVariantUnguarded) {
    // A loop in a function evaluated at compile time: the guard's call is not constexpr, so only
    // the guarded build fails to compile.
    const std::string source = std::string(kKernel) +
                               "__device__ constexpr int triangle(int n) { int s = 0; for (int k = 1; k <= n; k++) s += k; return s; }\n"
                               "static_assert(triangle(3) == 6, \"constexpr loop\");\n";
    const Variant v{Genome{}, source, {}, sha256_hex(source)};
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({v}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().unguarded, 1);
    EXPECT_TRUE(logged("guarded").empty());
}

TEST_F(LoopGuardEvaluator, VariantWithoutLoopsSendsNoGuardedBuild) {
    const std::string source = "#define BLOCK 256\n__global__ void scale(float* out, const float* in, int n) {\n"
                               "    int i = blockIdx.x * BLOCK + threadIdx.x;\n    if (i < n) out[i] = 2.0f * in[i];\n}\n";
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({Variant{Genome{}, source, {}, sha256_hex(source)}}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().guard_compiled, 0);
    EXPECT_EQ(e.stats().unguarded, 0);
    EXPECT_TRUE(logged("guarded").empty());
}

}  // namespace
}  // namespace gi
