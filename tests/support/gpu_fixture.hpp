#pragma once
// Shared set-up of the GPU tests: the gi-worker next to gi-tool, a check that a GPU is usable
// (otherwise the tests skip and say why), and a small recorded case written on the fly.
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

#include "cuda/cuda_evaluator.hpp"
#include "testcase/test_case.hpp"

namespace gi::gpu_test {

// gi-worker's path, or "" when this build has none.
std::string worker_path();

// Why the GPU tests cannot run here ("" when they can): no gi-worker, no driver, no device.
// Asked once per process (it starts a worker).
const std::string& gpu_unavailable_reason();

#define GI_REQUIRE_GPU()                                                              \
    do {                                                                              \
        if (!::gi::gpu_test::gpu_unavailable_reason().empty())                        \
            GTEST_SKIP() << ::gi::gpu_test::gpu_unavailable_reason();                 \
    } while (0)

// A case for `scale(float* out, const float* in, int n)`: n floats in, n floats out, grid of
// n/256 blocks of 256 threads.
TestCase scale_case(int n);

// Evaluator options for the `scale` kernel of scale_case() with gi_tests itself as the worker
// (tests/support/fake_worker.cpp, chosen by GI_FAKE_WORKER): block BLOCK, grid ceil(n/BLOCK), sm_90,
// every case a training case (no set-aside).
CudaEvaluatorOptions fake_worker_options(const std::filesystem::path& cases, int spare_workers);

// A fresh temporary folder removed at the end of the test.
class TempFolder {
public:
    TempFolder();
    ~TempFolder();
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

}  // namespace gi::gpu_test
