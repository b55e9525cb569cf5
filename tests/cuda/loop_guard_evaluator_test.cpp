// The cuda evaluator's loop guard without a GPU: gi_tests stands in for gi-worker
// (tests/support/fake_worker.cpp, mode "replay"; block size 64 = a loop that runs away). The
// evaluator must compile a guarded build for variants with loops: by default in the
// plain build's module (one cubin, guard-paired=1) when it is optimised as the plain build
// (--guard-fast-compile 0); by default, with --separate-guard-build, or when the paired compile
// fails, apart and in front of the plain one; either with the guard's budget. A loop the guard stops is a
// Timeout without a restart; with --no-loop-guard the same variant costs its worker; a guarded
// build that fails to compile leaves the variant checked unguarded, and counted.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <sstream>

#include "../support/fake_worker_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/hash.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

const char* kLoopGuardKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    for (int k = 0; k < 1; k++)
        if (i < n) out[i] = 2.0f * in[i];
}
)";

class LoopGuardEvaluator : public gpu_test::FakeWorkerEvaluatorTest {
public:
    void SetUp() override { set_up(kLoopGuardKernel, "64,128,256,512"); }
    const Grammar& grammar() const { return grammar_; }
    using FakeWorkerEvaluatorTest::with_block;
    // Paired builds unless a test says otherwise: most of these tests are about the paired path.
    CudaEvaluatorOptions options() const {
        CudaEvaluatorOptions o = FakeWorkerEvaluatorTest::options(1);
        o.paired_guard_build = true;
        o.guard_fast_compile = "0";  // guarded builds optimised as the plain ones, paired; -Ofc has tests of its own
        return o;
    }

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

// `separate`: --separate-guard-build, else the default paired build.
void runaway_loop_is_stopped(LoopGuardEvaluator& t, bool separate) {
    CudaEvaluatorOptions o = t.options();
    o.paired_guard_build = !separate;
    CudaEvaluator e(t.grammar(), o);
    const BatchResult r = e.evaluate({t.with_block("256"), t.with_block("64"), t.with_block("128")}, 0);
    ASSERT_EQ(r.results.size(), 3u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Timeout) << r.results[1].detail;
    EXPECT_NE(r.results[1].detail.find("loop guard stopped it"), std::string::npos) << r.results[1].detail;
    EXPECT_EQ(r.results[2].status, EvalStatus::Crash) << r.results[2].detail;  // block 128 crashes: one restart
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.runs.loop_overruns, 1);
    // The crash's alone (none for the loop): its replacement times the original after the batch's
    // variants (cuda/original_yardstick.hpp), the next request.
    EXPECT_EQ(s.workers.worker_restarts, 1);
    EXPECT_EQ(s.runs.timeouts, 0);
    EXPECT_EQ(s.unguarded(), 0);
    EXPECT_EQ(s.build.paired_fallbacks, 0);
    if (separate) {
        EXPECT_EQ(s.build.guard_compiled, 3);
        EXPECT_EQ(s.build.compiled, 6);  // three variants and their three guarded builds (the original is not counted)
        EXPECT_EQ(s.build.paired_builds, 0);
    } else {
        EXPECT_EQ(s.build.guard_compiled, 0);
        EXPECT_EQ(s.build.compiled, 3);  // one compile per variant
        EXPECT_EQ(s.build.paired_builds, 3);
    }
    EXPECT_EQ(s.runs.staged_runs, 2);
    EXPECT_DOUBLE_EQ(s.runs.stage_compare_ms, 4);
    // The fake original's median is 1 ms: the guard's budget is 10 x 1 ms + 2 ms.
    const std::vector<std::string> guarded = t.logged(separate ? "guarded" : "paired");
    ASSERT_EQ(guarded.size(), 3u);
    for (const std::string& line : guarded) EXPECT_EQ(line, std::string(separate ? "guarded" : "paired") + " 0 12000");
    EXPECT_TRUE(t.logged(separate ? "paired" : "guarded").empty());
    EXPECT_TRUE(t.logged("guard-malformed").empty());
    EXPECT_TRUE(t.logged("paired-malformed").empty());
    // The worker that ran the loop away is still the one working.
    const BatchResult next = e.evaluate({t.with_block("256")}, 0);
    EXPECT_EQ(next.results[0].status, EvalStatus::Ok) << next.results[0].detail;
    EXPECT_EQ(e.stats().workers.worker_restarts, 1);  // only the crash's
}

TEST_F(LoopGuardEvaluator, RunawayLoopIsStoppedWithoutARestart) { runaway_loop_is_stopped(*this, false); }

TEST_F(LoopGuardEvaluator, RunawayLoopIsStoppedWithoutARestartWithSeparateBuilds) { runaway_loop_is_stopped(*this, true); }

TEST_F(LoopGuardEvaluator, GuardMarginSetsTheBudget) {
    CudaEvaluatorOptions o = options();
    o.guard_margin_ms = 5;
    o.timeout_factor = 3;
    CudaEvaluator e(grammar_, o);
    e.evaluate({with_block("256")}, 0);
    const std::vector<std::string> paired = logged("paired");
    ASSERT_EQ(paired.size(), 1u);
    EXPECT_EQ(paired[0], "paired 0 8000");
}

TEST_F(LoopGuardEvaluator, WithoutTheGuardARunawayLoopCostsItsWorker) {
    CudaEvaluatorOptions o = options();
    o.loop_guard = false;
    CudaEvaluator e(grammar_, o);
    const BatchResult r = e.evaluate({with_block("64"), with_block("256")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Timeout) << r.results[0].detail;
    EXPECT_EQ(r.results[0].detail.find("loop guard"), std::string::npos) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
    EXPECT_EQ(e.stats().runs.loop_overruns, 0);
    EXPECT_EQ(e.stats().runs.timeouts, 1);
    EXPECT_EQ(e.stats().workers.worker_restarts, 1);
    EXPECT_EQ(e.stats().build.guard_compiled, 0);
    EXPECT_EQ(e.stats().build.paired_builds, 0);
    EXPECT_TRUE(logged("guarded").empty());
    EXPECT_TRUE(logged("paired").empty());
}

TEST_F(LoopGuardEvaluator, GuardedBuildThatFailsLeavesTheVariantUnguarded) {
    // A loop in a function evaluated at compile time: the guard's call is not constexpr, so only
    // the guarded build fails to compile.
    const std::string source = std::string(kLoopGuardKernel) +
                               "__device__ constexpr int triangle(int n) { int s = 0; for (int k = 1; k <= n; k++) s += k; return s; }\n"
                               "static_assert(triangle(3) == 6, \"constexpr loop\");\n";
    const Variant v{Genome{}, source, {}, sha256_hex(source)};
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({v}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().unguarded(), 1);
    EXPECT_EQ(e.stats().build.paired_fallbacks, 1);  // the paired compile failed first, for the same reason
    EXPECT_TRUE(logged("guarded").empty());
    EXPECT_TRUE(logged("paired").empty());
}

// Doubled, this table passes the 64 KB of constant memory a module may have: only the paired
// compile fails, and the variant is built apart, with its guard.
const std::string kBigTable = "__constant__ float table[12000];\n"
                              "__global__ void lookup(float* out) { for (int k = 0; k < 1; k++) out[k] = table[threadIdx.x]; }\n";

TEST_F(LoopGuardEvaluator, PairedCompileThatFailsFallsBackToSeparateBuilds) {
    const std::string source = std::string(kLoopGuardKernel) + kBigTable;
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({Variant{Genome{}, source, {}, sha256_hex(source)}, with_block("64")}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Timeout) << r.results[1].detail;  // the other is still paired
    EXPECT_EQ(e.stats().build.paired_fallbacks, 1);
    EXPECT_EQ(e.stats().build.paired_builds, 1);
    EXPECT_EQ(e.stats().build.guard_compiled, 1);
    EXPECT_EQ(e.stats().unguarded(), 0);
    EXPECT_EQ(e.stats().build.compiled, 4);  // the failed paired compile, the plain, the guarded; the other's paired
    EXPECT_EQ(logged("guarded"), std::vector<std::string>{"guarded 0 12000"});
    EXPECT_EQ(logged("paired"), std::vector<std::string>{"paired 0 12000"});
}

TEST_F(LoopGuardEvaluator, BrokenVariantGetsThePlainCompilersVerdict) {
    const std::string source = std::string(kLoopGuardKernel) + "__device__ int broken() { return undeclared_name; }\n";
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({Variant{Genome{}, source, {}, sha256_hex(source)}}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::CompileError);
    EXPECT_NE(r.results[0].detail.find("undeclared_name"), std::string::npos) << r.results[0].detail;
    // The plain compile's message alone (the paired unit has the error twice, at the same line).
    EXPECT_NE(r.results[0].detail.find("variant.cu(7)"), std::string::npos) << r.results[0].detail;
    EXPECT_NE(r.results[0].detail.find("1 error"), std::string::npos) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.paired_fallbacks, 1);
    EXPECT_EQ(e.stats().build.guard_compiled, 0);  // no guarded build for a variant that does not compile
    EXPECT_TRUE(logged("variant").empty());
}

TEST_F(LoopGuardEvaluator, OptimisedGuardedBuildsArePaired) {
    CudaEvaluatorOptions o = FakeWorkerEvaluatorTest::options(1);
    o.guard_fast_compile = "0";
    CudaEvaluator e(grammar_, o);
    e.evaluate({with_block("256")}, 0);
    EXPECT_EQ(e.stats().build.paired_builds, 1);
    EXPECT_EQ(e.stats().build.paired_fallbacks, 0);
    EXPECT_EQ(e.stats().build.guard_options, "");
    EXPECT_EQ(logged("paired").size(), 1u);
    EXPECT_TRUE(logged("guarded").empty());
}

// By default the guarded build compiles at -Ofc=mid, apart from the plain one, and still stops a
// loop that runs away; the original's own guarded build is checked first, before any variant's.
TEST_F(LoopGuardEvaluator, ByDefaultTheGuardedBuildCompilesFastAndApart) {
    CudaEvaluator e(grammar_, FakeWorkerEvaluatorTest::options(1));
    const BatchResult r = e.evaluate({with_block("256"), with_block("64")}, 0);
    ASSERT_EQ(r.results.size(), 2u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Timeout) << r.results[1].detail;
    EXPECT_NE(r.results[1].detail.find("loop guard stopped it"), std::string::npos) << r.results[1].detail;
    const CudaEvaluatorStats& s = e.stats();
    EXPECT_EQ(s.build.guard_options, "-Ofc=mid");
    EXPECT_EQ(s.build.paired_builds, 0);
    EXPECT_EQ(s.build.guard_compiled, 2);
    EXPECT_EQ(s.workers.worker_restarts, 0);
    EXPECT_EQ(logged("guarded").size(), 3u);  // the original's check, then the two variants'
    EXPECT_TRUE(logged("paired").empty());
    EXPECT_TRUE(logged("guard-malformed").empty());
}

// The check judges the guarded build's outputs, so the original's fast-compiled guarded build must
// reproduce them exactly; where it does not (floats rounded otherwise), the run's guarded builds are
// optimised as the plain ones, paired, and the run says why.
TEST_F(LoopGuardEvaluator, WhenTheOriginalsFastGuardedBuildDiffersGuardedBuildsAreOptimised) {
    struct Env {
        Env() { ::setenv("GI_FAKE_SEPARATE_GUARD_DIFFERS", "1", 1); }
        ~Env() { ::unsetenv("GI_FAKE_SEPARATE_GUARD_DIFFERS"); }
    } env;
    CudaEvaluator e(grammar_, FakeWorkerEvaluatorTest::options(1));
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_NE(err.find("the original's guarded build compiled with -Ofc=mid gave other outputs than its plain build: "
                       "buffer 0 (output, kernel argument 0): 2 of 100 elements differ"),
              std::string::npos) << err;
    EXPECT_NE(err.find("variants' guarded builds are optimised as their plain builds in this run"), std::string::npos) << err;
    EXPECT_EQ(e.stats().build.guard_options, "");
    EXPECT_EQ(e.stats().build.paired_builds, 1);
    EXPECT_EQ(logged("guarded").size(), 1u);  // the original's, once
    EXPECT_EQ(logged("paired").size(), 1u);
}

// An original that cannot be paired: every variant is built apart for the whole run, and the run says why.
class UnpairableOriginal : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    std::vector<std::string> logged(const std::string& event) const {
        std::vector<std::string> out;
        for (const gpu_test::FakeWorkerEvent& e : events())
            if (e.what == event) out.push_back(e.what);
        return out;
    }
    void expect_separate_builds(const std::string& why) {
        CudaEvaluatorOptions o = options(1);
        o.paired_guard_build = true;
        o.guard_fast_compile = "0";  // pairing is only tried for guarded builds optimised as the plain ones
        CudaEvaluator e(grammar_, o);
        ::testing::internal::CaptureStderr();
        const BatchResult r = e.evaluate({with_block("256"), with_block("64")}, 0);
        const std::string err = ::testing::internal::GetCapturedStderr();
        EXPECT_NE(err.find("loop-guarded build is compiled and loaded separately"), std::string::npos) << err;
        EXPECT_NE(err.find(why), std::string::npos) << err;
        EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
        EXPECT_EQ(r.results[1].status, EvalStatus::Timeout) << r.results[1].detail;
        EXPECT_EQ(e.stats().build.paired_builds, 0);
        EXPECT_EQ(e.stats().build.paired_fallbacks, 0);  // not tried per variant
        EXPECT_EQ(e.stats().build.guard_compiled, 2);
        EXPECT_EQ(logged("guarded").size(), 2u);
        EXPECT_TRUE(logged("paired").empty());
    }
};

TEST_F(UnpairableOriginal, ExternCKernel) {
    set_up(R"(#define BLOCK 256
extern "C" __global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    for (int k = 0; k < 1; k++)
        if (i < n) out[i] = 2.0f * in[i];
}
)", "64,256");
    if (IsSkipped()) return;
    expect_separate_builds("extern \"C\"");
}

TEST_F(UnpairableOriginal, TooMuchConstantMemoryWhenDoubled) {
    const std::string text = std::string(kLoopGuardKernel) + kBigTable;
    set_up(text.c_str(), "64,256");
    if (IsSkipped()) return;
    add_variable_to_cases("table", 48000, true);
    expect_separate_builds("does not compile twice in one unit");
}

TEST_F(LoopGuardEvaluator, VariantWithoutLoopsSendsNoGuardedBuild) {
    const std::string source = "#define BLOCK 256\n__global__ void scale(float* out, const float* in, int n) {\n"
                               "    int i = blockIdx.x * BLOCK + threadIdx.x;\n    if (i < n) out[i] = 2.0f * in[i];\n}\n";
    CudaEvaluator e(grammar_, options());
    const BatchResult r = e.evaluate({Variant{Genome{}, source, {}, sha256_hex(source)}}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.guard_compiled, 0);
    EXPECT_EQ(e.stats().unguarded(), 0);
    EXPECT_TRUE(logged("guarded").empty());
}

TEST_F(LoopGuardEvaluator, VariantWithABarrierAndNoLoopsIsGuardedUnlessTheBarrierGuardIsOff) {
    const std::string source = "#define BLOCK 256\n__global__ void scale(float* out, const float* in, int n) {\n"
                               "    int i = blockIdx.x * BLOCK + threadIdx.x;\n    __syncthreads();\n"
                               "    if (i < n) out[i] = 2.0f * in[i];\n}\n";
    const Variant v{Genome{}, source, {}, sha256_hex(source)};
    CudaEvaluatorOptions o = options();
    o.paired_guard_build = false;
    {
        CudaEvaluator e(grammar_, o);
        const BatchResult r = e.evaluate({v}, 0);
        EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
        EXPECT_EQ(e.stats().build.guard_compiled, 1);
        EXPECT_EQ(logged("guarded").size(), 1u);
    }
    o.barrier_guard = false;
    CudaEvaluator e(grammar_, o);
    const BatchResult r = e.evaluate({v}, 0);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.guard_compiled, 0);
    EXPECT_EQ(logged("guarded").size(), 1u) << "no second guarded build";
}

}  // namespace
}  // namespace gi
