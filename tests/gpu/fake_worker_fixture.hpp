#pragma once
// Tests of the cuda evaluator without a GPU: gi_tests itself stands in for gi-worker
// (tests/gpu/fake_worker.cpp, mode "replay": the block size decides what the fake variant does) and
// logs what it was asked to a file. Compiles are real (NVRTC), so the tests skip without it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "evaluate/cuda_evaluator.hpp"
#include "grammar/grammar.hpp"
#include "gpu_fixture.hpp"

namespace gi::gpu_test {

class FakeWorkerEvaluatorTest : public ::testing::Test {
protected:
    // Writes `kernel_text` as scale.cu with the gene BLOCK=`block_values`, `cases` recorded cases of
    // scale_case (4096 floats, then halving), and points the evaluator's workers at the fake.
    // Skips the test when this build has no NVRTC.
    void set_up(const char* kernel_text, const std::string& block_values, int cases = 1);
    void TearDown() override;

    CudaEvaluatorOptions options(int spare_workers) const;
    Variant with_block(const std::string& block) const;

    TempFolder folder_;
    std::filesystem::path kernel_, log_;  // log_: one line per fake-worker event, "<pid> <event> ..."
    Grammar grammar_;
};

}  // namespace gi::gpu_test
