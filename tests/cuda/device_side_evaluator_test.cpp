// The cuda evaluator on kernel files written with host code (issue 16): NVRTC compiles their device
// side, every variant keeps the fast path, and what is validated is nvcc's build of the whole file.
// A file whose kernel needs its host code falls back to nvcc for the run. No GPU needed: gi_tests
// stands in for gi-worker (tests/support/fake_worker.cpp, mode "replay"); compiles are real.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "../support/toolkit.hpp"
#include "../support/gpu_fixture.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

// The `scale` kernel as programs write it: C and C++ headers, a host check and main() in the file.
const char* kWithHostCode = R"(#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
static void check(cudaError_t status) {
    if (status != cudaSuccess) { std::fprintf(stderr, "%s\n", cudaGetErrorString(status)); std::exit(2); }
}
int main() {
    std::vector<float> host(1024, 1.0f);
    float *in = nullptr, *out = nullptr;
    check(cudaMalloc(&in, 4096));
    check(cudaMalloc(&out, 4096));
    scale<<<4, BLOCK>>>(out, in, 1024);
    return 0;
}
)";

// The kernel calls a host constexpr function (allowed by --expt-relaxed-constexpr): its device side
// alone does not compile, so the run compiles with nvcc.
const char* kNeedsHostCode = R"(#include <cstdio>
#define BLOCK 256
constexpr float factor() { return 2.0f; }
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = factor() * in[i];
}
int main() { std::printf("scale\n"); return 0; }
)";

// Host code in the project's own headers too: a header of host declarations (with CUDA runtime
// types) and one of device helpers with a host function beside them, as programs split files.
const char* kWithProjectHeaders = R"(#include <vector>
#include "scale_host.hpp"
#include "math/scale_math.cuh"
#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = twice(in[i]);
}
cudaError_t run_scale(float* out, const float* in, int n) {
    scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(out, in, n);
    return cudaGetLastError();
}
)";
const char* kScaleHost = R"(#pragma once
#include <cuda_runtime.h>
#include <string>
// The program's host side.
cudaError_t run_scale(float* out, const float* in, int n);
std::string describe(const std::vector<float>& values);
inline int blocks_for(int n) { return (n + 255) / 256; }
)";
const char* kScaleMath = R"(#pragma once
#include <cstdio>
#include "limits.cuh"
__device__ inline float twice(float x) { return x * FACTOR; }
inline void print_factor() { std::printf("factor %g\n", FACTOR); }
)";
const char* kLimits = "#pragma once\n#define FACTOR 2.0f\nstatic const char* const kName = \"scale\";\n";

class DeviceSideEvaluator : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
        if (!test::have_nvcc()) GTEST_SKIP() << "nvcc not found (the device side is checked against nvcc's build)";
        write_test_case(gpu_test::scale_case(1 << 12), folder_.path() / "cases");
        ::setenv("GI_FAKE_WORKER", "replay", 1);
    }
    void TearDown() override { ::unsetenv("GI_FAKE_WORKER"); }

    Grammar grammar_of(const char* text) {
        const fs::path kernel = folder_.path() / "scale.cu";
        std::ofstream(kernel) << text;
        GrammarOptions options;
        options.functions = {"scale"};
        options.params = {parse_param_declaration("BLOCK=64,128,256,512", "--param")};
        return build_grammar(read_source_file(kernel), options);
    }

    CudaEvaluatorOptions options() const {
        CudaEvaluatorOptions o = gpu_test::fake_worker_options(folder_.path() / "cases", 0);
        o.compile_options.push_back("--expt-relaxed-constexpr");
        return o;
    }

    gpu_test::TempFolder folder_;
};

TEST_F(DeviceSideEvaluator, HostCodeInTheFileKeepsNvrtcAndValidatesNvccsBuild) {
    const Grammar grammar = grammar_of(kWithHostCode);
    CudaEvaluator e(grammar, options());
    const ValidationReport report = e.validate(make_variant(Genome{}, grammar));
    EXPECT_EQ(report.built_by, "nvcc, the whole file");
    EXPECT_TRUE(report.passed()) << report.summary();
    const BatchResult r = e.evaluate({make_variant(Genome{}, grammar)}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.compiler, "nvrtc (device side)");
}

TEST_F(DeviceSideEvaluator, HostCodeInProjectHeadersIsSetAsideToo) {
    const fs::path include = folder_.path() / "include";
    fs::create_directories(include / "math");
    std::ofstream(include / "scale_host.hpp") << kScaleHost;
    std::ofstream(include / "math" / "scale_math.cuh") << kScaleMath;
    std::ofstream(include / "math" / "limits.cuh") << kLimits;
    const Grammar grammar = grammar_of(kWithProjectHeaders);
    CudaEvaluatorOptions o = options();
    o.include_dirs = {include.string()};
    CudaEvaluator e(grammar, o);
    const BatchResult r = e.evaluate({make_variant(Genome{}, grammar)}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.compiler, "nvrtc (device side)");
    for (const std::string& note : e.run_notes()) EXPECT_EQ(note.find("NVRTC cannot"), std::string::npos) << note;
    EXPECT_EQ(e.validate(make_variant(Genome{}, grammar)).built_by, "nvcc, the whole file");
}

TEST_F(DeviceSideEvaluator, AKernelThatNeedsItsHostCodeCompilesWithNvcc) {
    const Grammar grammar = grammar_of(kNeedsHostCode);
    CudaEvaluator e(grammar, options());
    const BatchResult r = e.evaluate({make_variant(Genome{}, grammar)}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.compiler, "nvcc");
    bool noted = false;
    for (const std::string& note : e.run_notes()) noted |= note.find("its device side alone") != std::string::npos;
    EXPECT_TRUE(noted) << "the run notes say why NVRTC was not used";
}

}  // namespace
}  // namespace gi
