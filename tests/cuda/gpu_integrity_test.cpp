// GPU tests of gi-worker's integrity check (skip without a GPU): a variant that writes a few
// hundred bytes past the end of its output must be reported as corrupting and cost its worker, and
// the correct variant after it must be Ok on an intact case. The case is small on purpose: cuMemAlloc
// sub-allocates small buffers from one pool, so the write lands in the worker's next allocation
// (the same working copy's input) instead of faulting, as stereo's MIN_SSD(ROWS_PER_THREAD) edit
// did on the H100.
#include <gtest/gtest.h>

#include <chrono>

#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_classify.hpp"
#include "../support/gpu_fixture.hpp"
#include "testcase/case_io.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace {

using namespace std::chrono_literals;
using worker::Message;

constexpr int kIntegrityCaseN = 4096;  // 16 KiB per buffer

const char* kOriginal = R"(
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

// Correct outputs, plus 64 floats (256 bytes) written past the end of `out` by the first threads,
// with a NaN no input holds.
const char* kWritesPastItsOutput = R"(
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
    if (i < 64) out[n + i] = __int_as_float(0x7fc0dead);
}
)";

const char* kCorrectVariant = R"(
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + in[i];
}
)";

std::string cubin_of(const std::string& source) {
    DeviceCompileRequest r;
    r.source = source;
    r.arch = "sm_90";
    const DeviceCompileResult out = compile_with_nvrtc(r);
    EXPECT_TRUE(out.ok) << out.log;
    return out.cubin;
}

class GpuIntegrity : public ::testing::Test {
protected:
    void SetUp() override {
        GI_REQUIRE_GPU();
        if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC in this build";
        case_dir_ = write_test_case(gpu_test::scale_case(kIntegrityCaseN), folder_.path());
        start();
    }

    void start() {
        ++starts_;
        worker_ = std::make_unique<worker::WorkerProcess>(worker::WorkerOptions{gpu_test::worker_path(), {}, {}, {}});
        ASSERT_EQ(worker_->request({"hello", {}, {}}, 60s).type, "ready");
        const Message loaded = worker_->request({"load-case", {{"slot", "0"}, {"path", case_dir_.string()}}, {}}, 60s);
        ASSERT_EQ(loaded.type, "case-loaded") << loaded.get("message");
        const RunVerdict v = classify_run_reply(worker_->request(run("original", cubin_of(kOriginal)), 60s));
        ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
        ASSERT_EQ(v.mismatches, 0u);
    }

    Message run(const std::string& role, const std::string& cubin) const {
        return {"run", {{"slot", "0"}, {"role", role}, {"kernel", "scale"}, {"warmups", "2"}, {"repetitions", "10"}}, cubin};
    }

    // As the evaluator does: the worker is replaced when the verdict says so.
    RunVerdict evaluate(const std::string& cubin) {
        if (!worker_->running()) start();
        RunVerdict v;
        try {
            worker_->send(run("variant", cubin), 5s);
            Message reply = worker_->receive("run", 5s);
            while (reply.type == "started" || reply.type == "checked") reply = worker_->receive("run", 5s);
            v = classify_run_reply(reply);
        } catch (const worker::WorkerFailure& e) {
            v = classify_worker_failure(e);
        }
        if (v.restart_worker) worker_->kill();
        return v;
    }

    gpu_test::TempFolder folder_;
    std::filesystem::path case_dir_;
    std::unique_ptr<worker::WorkerProcess> worker_;
    int starts_ = 0;
};

TEST_F(GpuIntegrity, CorrectVariantLeavesTheCaseIntact) {
    for (int k = 0; k < 3; ++k) {
        const RunVerdict v = evaluate(cubin_of(kCorrectVariant));
        ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
        EXPECT_FALSE(v.corrupting);
        EXPECT_EQ(v.mismatches, 0u);
        ASSERT_TRUE(v.has_stages);
        EXPECT_GT(v.integrity_ms, 0);
        // Against golden copies on the GPU: nothing read back when nothing changed.
        EXPECT_GT(v.integrity_on_gpu, 0);
        EXPECT_EQ(v.integrity_on_host, 0);
    }
    EXPECT_EQ(starts_, 1);
}

// Correct outputs, but the variant writes its read-only input (const cast away) after reading it.
// On a case too large to read back after every variant, such a write went unseen until a later
// variant failed; checked on the GPU it is found at once.
const char* kWritesItsInput = R"(
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        const float x = in[i];
        out[i] = 2.0f * x;
        if (i == 0) const_cast<float*>(in)[0] = x + 1.0f;
    }
}
)";

TEST_F(GpuIntegrity, ALargeCaseIsCheckedWholeOnTheGpu) {
    worker_->kill();
    case_dir_ = write_test_case(gpu_test::scale_case(1 << 24), folder_.path() / "large");  // 64 MB a buffer
    start();
    const RunVerdict ok = evaluate(cubin_of(kCorrectVariant));
    ASSERT_EQ(ok.result.status, EvalStatus::Ok) << ok.result.detail;
    EXPECT_GT(ok.integrity_on_gpu, 0);
    EXPECT_EQ(ok.integrity_on_host, 0);
    const RunVerdict bad = evaluate(cubin_of(kWritesItsInput));
    EXPECT_EQ(bad.result.status, EvalStatus::Crash) << bad.result.detail;
    EXPECT_TRUE(bad.corrupting) << bad.result.detail;
    EXPECT_NE(bad.result.detail.find("buffer 1 (read-only input, kernel argument 1) changed during the run ("),
              std::string::npos) << bad.result.detail;
    const RunVerdict next = evaluate(cubin_of(kCorrectVariant));
    EXPECT_EQ(next.result.status, EvalStatus::Ok) << next.result.detail;
    EXPECT_EQ(next.mismatches, 0u);
}

TEST_F(GpuIntegrity, WritingPastTheOutputIsCorruptingAndCostsTheWorker) {
    ASSERT_EQ(evaluate(cubin_of(kCorrectVariant)).result.status, EvalStatus::Ok);
    const RunVerdict bad = evaluate(cubin_of(kWritesPastItsOutput));
    EXPECT_EQ(bad.result.status, EvalStatus::Crash) << bad.result.detail;
    EXPECT_TRUE(bad.corrupting) << bad.result.detail;
    EXPECT_TRUE(bad.restart_worker);
    EXPECT_NE(bad.result.detail.find("wrote outside its buffers: the worker's"), std::string::npos) << bad.result.detail;
    EXPECT_TRUE(bad.times_ms.empty());
    // The next correct variant runs on a fresh worker's intact case: Ok, not a wrong answer.
    for (int k = 0; k < 2; ++k) {
        const RunVerdict next = evaluate(cubin_of(kCorrectVariant));
        EXPECT_EQ(next.result.status, EvalStatus::Ok) << next.result.detail;
        EXPECT_EQ(next.mismatches, 0u) << next.result.detail;
        EXPECT_FALSE(next.corrupting);
    }
    EXPECT_EQ(starts_, 2);
}

}  // namespace
}  // namespace gi
