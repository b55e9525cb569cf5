#pragma once
// Tests of the cuda evaluator without a GPU: gi_tests itself stands in for gi-worker
// (tests/support/fake_worker.cpp, mode "replay": the block size decides what the fake variant does) and
// logs what it was asked to a file. Compiles are real (NVRTC), so the tests skip without it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cuda/cuda_evaluator.hpp"
#include "grammar/grammar.hpp"
#include "gpu_fixture.hpp"

namespace gi::gpu_test {

// The plain `scale` kernel (BLOCK a gene), for tests whose fake variants differ only in BLOCK.
inline constexpr const char* kScaleKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

// `scale` through a shared-memory tile and a barrier, for tests of the checkers a variant that
// removes the barrier meets (racecheck, synccheck).
inline constexpr const char* kBarrierScaleKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    __shared__ float tile[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = 2.0f * tile[threadIdx.x];
}
)";

// One line of the fake workers' log: "<pid> <event> <slot> <detail>" (detail: its first word).
struct FakeWorkerEvent {
    std::string pid, what, slot, detail;
};

class FakeWorkerEvaluatorTest : public ::testing::Test {
protected:
    // Writes `kernel_text` as scale.cu with the gene BLOCK=`block_values`, `cases` recorded cases of
    // scale_case (4096 floats, then halving), and points the evaluator's workers at the fake.
    // Skips the test when this build has no NVRTC.
    void set_up(const char* kernel_text, const std::string& block_values, int cases = 1);
    void TearDown() override;
    // Gives every recorded case a capture of the module variable `name` (`bytes` zero bytes), as
    // `gi-tool record` would for a kernel file that defines it.
    void add_variable_to_cases(const std::string& name, std::uint64_t bytes, bool constant);

    CudaEvaluatorOptions options(int spare_workers) const;
    Variant with_block(const std::string& block) const;
    std::vector<FakeWorkerEvent> events() const;  // the log so far, in order
    // A compute-sanitizer that passes every variant a process is given (a process per batch: the
    // evaluator with sanitize_sessions 0), saying what gi-worker says after running them, which the
    // evaluator requires. It writes its checker's name to `log`, one line per variant. Returns its path.
    std::string passing_sanitizer(const std::filesystem::path& log) const;
    // A compute-sanitizer for sessions: given --log-file (a long-lived session) it runs the fake
    // worker with that log in GI_FAKE_SANITIZER_LOG and its checker's name in GI_FAKE_SANITIZER_TOOL;
    // otherwise (a process of its own) it runs `process_body`, shell lines with the variant list's
    // path in $list. Returns its path.
    std::string session_sanitizer(const std::string& process_body) const;

    TempFolder folder_;
    std::filesystem::path kernel_, log_;  // log_: one line per fake-worker event, "<pid> <event> ..."
    Grammar grammar_;
};

}  // namespace gi::gpu_test
