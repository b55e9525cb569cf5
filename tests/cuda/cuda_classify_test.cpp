#include "cuda/cuda_classify.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

using worker::Message;
using worker::WorkerFailure;

Message result(std::map<std::string, std::string> fields) { return {"result", std::move(fields), {}}; }

TEST(CudaClassify, CorrectVariantCarriesItsTimes) {
    const RunVerdict v = classify_run_reply(result({{"outcome", "ok"}, {"sticky", "0"}, {"elements", "100"},
                                                    {"mismatches", "0"}, {"worst", "0"}, {"error", "0"},
                                                    {"hard-failure", "0"}, {"times", "0.5,0.25,0.75"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Ok);
    EXPECT_EQ(v.times_ms, (std::vector<double>{0.5, 0.25, 0.75}));
    EXPECT_EQ(v.elements, 100u);
    EXPECT_FALSE(v.restart_worker);
}

TEST(CudaClassify, ErrorWithinToleranceIsStillOk) {
    const RunVerdict v = classify_run_reply(result({{"outcome", "ok"}, {"elements", "10"}, {"mismatches", "2"},
                                                    {"worst", "3"}, {"error", "0.6"}, {"hard-failure", "0"},
                                                    {"times", "1"}, {"detail", "buffer 1: 2 of 10 elements differ"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Ok);
    EXPECT_DOUBLE_EQ(v.result.error, 0.6);
    EXPECT_DOUBLE_EQ(v.worst_error, 3);
}

TEST(CudaClassify, UnwrittenOutputsAreWrongAnswers) {
    const RunVerdict v = classify_run_reply(result({{"outcome", "ok"}, {"elements", "10"}, {"mismatches", "10"},
                                                    {"unwritten", "10"}, {"worst", "0"}, {"error", "200"},
                                                    {"hard-failure", "1"}, {"detail", "left unwritten"}}));
    EXPECT_EQ(v.result.status, EvalStatus::WrongAnswer);
    EXPECT_NE(v.result.detail.find("unwritten"), std::string::npos);
}

TEST(CudaClassify, FaultsAndLaunchErrorsAreCrashes) {
    RunVerdict v = classify_run_reply(result({{"outcome", "fault"}, {"sticky", "1"}, {"cuda-error", "CUDA_ERROR_ILLEGAL_ADDRESS"},
                                              {"detail", "running the variant: CUDA_ERROR_ILLEGAL_ADDRESS"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Crash);
    EXPECT_TRUE(v.restart_worker);
    EXPECT_NE(v.result.detail.find("ILLEGAL_ADDRESS"), std::string::npos);
    v = classify_run_reply(result({{"outcome", "launch-error"}, {"sticky", "0"}, {"detail", "too many resources"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Crash);
    EXPECT_FALSE(v.restart_worker);
}

TEST(CudaClassify, LoopOverrunIsATimeoutThatKeepsTheWorker) {
    const RunVerdict v = classify_run_reply(result({{"outcome", "loop-overrun"}, {"sticky", "0"}, {"loop-guard", "used"},
                                                    {"detail", "a loop was still running 8.4 ms after the kernel started; "
                                                               "the loop guard stopped it"},
                                                    {"load-ms", "1.5"}, {"check-ms", "9"}, {"compare-ms", "0"}, {"timed-ms", "0"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Timeout);
    EXPECT_TRUE(v.loop_overrun);
    EXPECT_FALSE(v.restart_worker);
    EXPECT_FALSE(v.guard_unusable);
    EXPECT_NE(v.result.detail.find("loop guard stopped it"), std::string::npos);
    ASSERT_TRUE(v.has_stages);
    EXPECT_DOUBLE_EQ(v.load_ms, 1.5);
    EXPECT_DOUBLE_EQ(v.check_ms, 9);
}

TEST(CudaClassify, CorruptingVariantIsACrashThatReplacesTheWorker) {
    // Its outputs were right: the damage to the worker's copies alone must keep it out.
    const RunVerdict v = classify_run_reply(result({{"outcome", "corrupted"}, {"sticky", "1"}, {"loop-guard", "none"},
                                                    {"detail", "wrote outside its buffers: the worker's working copy 3 of "
                                                               "buffer 1 (read-only input, kernel argument 1) changed during "
                                                               "the run (417 of 4096 bytes differ, the first at byte 12)"},
                                                    {"elements", "1024"}, {"mismatches", "0"}, {"worst", "0"}, {"error", "0"},
                                                    {"hard-failure", "0"}, {"times", ""}, {"load-ms", "0.5"}, {"check-ms", "1"},
                                                    {"compare-ms", "2"}, {"timed-ms", "3"}, {"integrity-ms", "0.75"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Crash);
    EXPECT_TRUE(v.corrupting);
    EXPECT_TRUE(v.restart_worker);
    EXPECT_FALSE(v.loop_overrun);
    EXPECT_TRUE(v.times_ms.empty());
    EXPECT_NE(v.result.detail.find("wrote outside its buffers: the worker's working copy 3 of buffer 1"), std::string::npos);
    ASSERT_TRUE(v.has_stages);
    EXPECT_DOUBLE_EQ(v.integrity_ms, 0.75);
    // Replaced even when the reply forgot to say sticky: its copies are damaged either way.
    EXPECT_TRUE(classify_run_reply(result({{"outcome", "corrupted"}, {"sticky", "0"}})).restart_worker);
}

TEST(CudaClassify, StageTimesAndAnUnusableGuardAreReported) {
    const RunVerdict v = classify_run_reply(result({{"outcome", "ok"}, {"elements", "1"}, {"mismatches", "0"}, {"worst", "0"},
                                                    {"error", "0"}, {"hard-failure", "0"}, {"times", "1"},
                                                    {"loop-guard", "unusable: finding gi_loop_clock: CUDA_ERROR_NOT_FOUND"},
                                                    {"load-ms", "0.5"}, {"check-ms", "1"}, {"compare-ms", "2"}, {"timed-ms", "3"}}));
    EXPECT_EQ(v.result.status, EvalStatus::Ok);
    EXPECT_TRUE(v.guard_unusable);
    EXPECT_FALSE(v.loop_overrun);
    ASSERT_TRUE(v.has_stages);
    EXPECT_DOUBLE_EQ(v.compare_ms, 2);
    EXPECT_DOUBLE_EQ(v.timed_ms, 3);
    EXPECT_FALSE(classify_run_reply(result({{"outcome", "ok"}, {"times", "1"}})).has_stages);
    EXPECT_THROW(classify_run_reply(result({{"outcome", "ok"}, {"times", "1"}, {"check-ms", "soon"}})), Error);
}

TEST(CudaClassify, ModulesThatDoNotLoadAreCompileErrors) {
    EXPECT_EQ(classify_run_reply(result({{"outcome", "load-error"}, {"sticky", "0"}})).result.status, EvalStatus::CompileError);
    EXPECT_EQ(classify_run_reply(result({{"outcome", "no-kernel"}, {"sticky", "0"}})).result.status, EvalStatus::CompileError);
}

TEST(CudaClassify, WorkerErrorsAndUnknownReplies) {
    const RunVerdict v = classify_run_reply({"error", {{"message", "out of memory"}, {"fatal", "1"}}, {}});
    EXPECT_EQ(v.result.status, EvalStatus::Crash);
    EXPECT_TRUE(v.restart_worker);
    EXPECT_THROW(classify_run_reply({"ready", {}, {}}), Error);
    EXPECT_THROW(classify_run_reply(result({{"outcome", "maybe"}})), Error);
    EXPECT_THROW(classify_run_reply(result({{"outcome", "ok"}, {"times", "1,x"}})), Error);
}

TEST(CudaClassify, WorkerFailures) {
    RunVerdict v = classify_worker_failure(WorkerFailure(WorkerFailure::Kind::Timeout, "no answer within 2000 ms"));
    EXPECT_EQ(v.result.status, EvalStatus::Timeout);
    EXPECT_TRUE(v.restart_worker);
    v = classify_worker_failure(WorkerFailure(WorkerFailure::Kind::Died, "killed by signal 6"));
    EXPECT_EQ(v.result.status, EvalStatus::Crash);
    EXPECT_NE(v.result.detail.find("signal 6"), std::string::npos);
}

TEST(CudaClassify, SanitizerExits) {
    const std::string report =
        "========= COMPUTE-SANITIZER\n"
        "========= Invalid __global__ write of size 4 bytes\n"
        "=========     at blurKernel(...)+0x90\n"
        "=========\n"
        "========= ERROR SUMMARY: 1 error\n";
    EXPECT_EQ(classify_sanitizer_exit(0, false, 86, "", "memcheck").status, EvalStatus::Ok);
    EvalResult r = classify_sanitizer_exit(86, false, 86, report, "memcheck");
    EXPECT_EQ(r.status, EvalStatus::SanitizerError);
    EXPECT_NE(r.detail.find("Invalid __global__ write"), std::string::npos) << r.detail;
    EXPECT_EQ(r.detail.find("COMPUTE-SANITIZER"), std::string::npos) << r.detail;
    EXPECT_EQ(classify_sanitizer_exit(1, false, 86, "", "racecheck").status, EvalStatus::Crash);
    EXPECT_EQ(classify_sanitizer_exit(-1, true, 86, "", "racecheck").status, EvalStatus::Timeout);
    EXPECT_EQ(sanitizer_report_excerpt(report, 1), "========= Invalid __global__ write of size 4 bytes");
}

TEST(CudaClassify, CountsBarriers) {
    EXPECT_EQ(count_barriers("a; __syncthreads(); b; __syncthreads();\n__syncwarp();"), 3);
    EXPECT_EQ(count_barriers("no barriers"), 0);
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {
TEST(CudaClassify, MissingSanitizerIsAClearError) {
    try {
        find_compute_sanitizer("/nonexistent/compute-sanitizer");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/compute-sanitizer"), std::string::npos) << e.what();
    }
}
}  // namespace
}  // namespace gi
