#include "evaluate/cuda_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace gi {
namespace {

// The registration's --block-size is the launch's block unless --block says otherwise (issue 17:
// a build's .registration carries --block-size only).
TEST(CudaOptions, TheRegisteredBlockSizeIsTheBlockUnlessBlockIsGiven) {
    EXPECT_EQ(cuda_evaluator_options({{"--cases", {"c"}}}, "", {}, "BLOCK_W,DPER").block, "BLOCK_W,DPER");
    EXPECT_EQ(cuda_evaluator_options({{"--cases", {"c"}}, {"--block", {"64"}}}, "", {}, "BLOCK_W,DPER").block, "64");
    EXPECT_EQ(cuda_evaluator_options({{"--cases", {"c"}}}, "").block, "");
    EXPECT_EQ(cuda_evaluator_options({{"--cases", {"c"}}, {"--sanitize-batch", {"3"}}}, "").sanitize_batch, 3);
    EXPECT_EQ(cuda_evaluator_options({{"--cases", {"c"}}}, "").sanitize_batch, 8);
}

TEST(CudaOptions, DefaultsAndValues) {
    const CudaEvaluatorOptions o = cuda_evaluator_options(
        {{"--cases", {"/tmp/c"}}, {"--tolerance", {"abs=1e-3", "out:exact"}}, {"--repetitions", {"20"}},
         {"--block", {"BLOCK_W,4"}}, {"--arch", {"sm_90"}}},
        "kernels/stereo/stereo.cu");
    EXPECT_EQ(o.cases, "/tmp/c");
    EXPECT_EQ(o.tolerances.size(), 2u);
    EXPECT_EQ(o.repetitions, 20);
    EXPECT_EQ(o.warmups, 2);
    EXPECT_EQ(o.block, "BLOCK_W,4");
    EXPECT_EQ(o.arch, "sm_90");
    EXPECT_EQ(o.spare_workers, 4);
    EXPECT_EQ(o.sanitize_jobs, 0);  // the evaluator's own choice
    EXPECT_EQ(o.timeout_margin_ms, 30);
    EXPECT_TRUE(o.loop_guard);
    EXPECT_EQ(o.guard_margin_ms, 2);
    ASSERT_EQ(o.include_dirs.size(), 1u);
    EXPECT_EQ(o.include_dirs[0], "kernels/stereo");
}

// cuda_evaluator_options refuses these options with a UsageError that names `option`.
void expect_refused(const std::map<std::string, std::vector<std::string>>& values, const std::set<std::string>& switches,
                    const std::string& option) {
    try {
        cuda_evaluator_options(values, "", switches);
        ADD_FAILURE() << "accepted what should name " << option;
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
}

// `option` is a switch the command line takes, and the help describes it.
void expect_documented_switch(const std::string& option) {
    const std::vector<std::string> switches = cuda_switch_options();
    EXPECT_NE(std::find(switches.begin(), switches.end(), option), switches.end()) << option;
    EXPECT_NE(cuda_options_help().find(option), std::string::npos) << option;
}

TEST(CudaOptions, LoopGuardOptions) {
    CudaEvaluatorOptions o = cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--no-loop-guard"});
    EXPECT_FALSE(o.loop_guard);
    o = cuda_evaluator_options({{"--cases", {"c"}}, {"--loop-guard-margin-ms", {"7"}}}, "");
    EXPECT_TRUE(o.loop_guard);
    EXPECT_EQ(o.guard_margin_ms, 7);
    expect_documented_switch("--no-loop-guard");
    EXPECT_NE(cuda_options_help().find("--loop-guard-margin-ms"), std::string::npos);
    // A margin for a guard that is off.
    expect_refused({{"--cases", {"c"}}, {"--loop-guard-margin-ms", {"5"}}}, {"--no-loop-guard"}, "--no-loop-guard");
}

TEST(CudaOptions, BarrierGuardIsOnWithTheLoopGuardUnlessTurnedOff) {
    EXPECT_TRUE(cuda_evaluator_options({{"--cases", {"c"}}}, "").barrier_guard);
    EXPECT_FALSE(cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--no-barrier-guard"}).barrier_guard);
    EXPECT_TRUE(cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--no-barrier-guard"}).loop_guard);
    EXPECT_FALSE(cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--no-loop-guard"}).barrier_guard);
    expect_documented_switch("--no-barrier-guard");
    // Turning off a guard that --no-loop-guard already turned off.
    expect_refused({{"--cases", {"c"}}}, {"--no-loop-guard", "--no-barrier-guard"}, "--no-barrier-guard");
}

TEST(CudaOptions, PairedGuardBuildIsTheDefault) {
    EXPECT_TRUE(cuda_evaluator_options({{"--cases", {"c"}}}, "").paired_guard_build);
    EXPECT_FALSE(cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--separate-guard-build"}).paired_guard_build);
    EXPECT_FALSE(cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--no-loop-guard"}).paired_guard_build);
    expect_documented_switch("--separate-guard-build");
    // Separate guarded builds with the guard off.
    expect_refused({{"--cases", {"c"}}}, {"--no-loop-guard", "--separate-guard-build"}, "--separate-guard-build");
}

TEST(CudaOptions, BinaryDuplicatesGetTheFirstResultUnlessAskedToRun) {
    EXPECT_TRUE(cuda_evaluator_options({{"--cases", {"c"}}}, "").reuse_binary_duplicates);
    EXPECT_FALSE(cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--run-binary-duplicates"}).reuse_binary_duplicates);
    expect_documented_switch("--run-binary-duplicates");
}

TEST(CudaOptions, MalformedValuesNameTheOption) {
    auto fails = [](const std::map<std::string, std::vector<std::string>>& values, const std::string& option) {
        expect_refused(values, {}, option);
    };
    fails({}, "--cases");
    fails({{"--cases", {"c"}}, {"--arch", {"90"}}}, "--arch");
    fails({{"--cases", {"c"}}, {"--jobs", {"many"}}}, "--jobs");
    fails({{"--cases", {"c"}}, {"--repetitions", {"0"}}}, "--repetitions");
    fails({{"--cases", {"c"}}, {"--timeout-factor", {"0.5"}}}, "--timeout-factor");
    fails({{"--cases", {"c"}}, {"--spare-workers", {"99"}}}, "--spare-workers");
    fails({{"--cases", {"c"}}, {"--sanitize-jobs", {"0"}}}, "--sanitize-jobs");
    fails({{"--cases", {"c"}}, {"--sanitize-jobs", {"65"}}}, "--sanitize-jobs");
    fails({{"--cases", {"c"}}, {"--loop-guard-margin-ms", {"-1"}}}, "--loop-guard-margin-ms");
    fails({{"--cases", {"c"}}, {"--loop-guard-margin-ms", {"2ms"}}}, "--loop-guard-margin-ms");
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

TEST(CudaOptions, SanitizerSessionOptions) {
    CudaEvaluatorOptions o = cuda_evaluator_options({{"--cases", {"c"}}}, "");
    EXPECT_TRUE(o.sanitize_prewarm);
    EXPECT_EQ(o.sanitize_sessions, -1);  // as many as --sanitize-jobs
    o = cuda_evaluator_options({{"--cases", {"c"}}, {"--sanitize-sessions", {"3"}}}, "", {"--no-sanitize-prewarm"});
    EXPECT_FALSE(o.sanitize_prewarm);
    EXPECT_EQ(o.sanitize_sessions, 3);
    EXPECT_FALSE(o.sanitize_shared_sessions);
    expect_documented_switch("--no-sanitize-prewarm");
    o = cuda_evaluator_options({{"--cases", {"c"}}}, "", {"--sanitize-shared-sessions"});
    EXPECT_TRUE(o.sanitize_shared_sessions);
    expect_documented_switch("--sanitize-shared-sessions");
    o = cuda_evaluator_options({{"--cases", {"c"}}, {"--sanitize-cases", {"small"}}}, "");
    EXPECT_EQ(o.sanitize_cases, "small");
    const std::vector<std::string> values = cuda_value_options();
    EXPECT_NE(std::find(values.begin(), values.end(), "--sanitize-cases"), values.end());
    EXPECT_NE(cuda_options_help().find("--sanitize-cases DIR"), std::string::npos);
}

}  // namespace
}  // namespace gi
