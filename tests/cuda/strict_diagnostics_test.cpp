// The cuda evaluator compiles every variant with nvcc's warning 940 (a non-void function without a
// return at its end) as an error: such a variant has undefined behaviour and may pass every check by
// luck. Unless the original kernel has the warning itself. No GPU needed: gi_tests stands in for
// gi-worker (tests/support/fake_worker.cpp, mode "replay"); compiles are real (NVRTC).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>

#include "../support/gpu_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

// Line 3 is the helper's return: deleting it (genome "<_scale.cu_3>") leaves warning 940.
const char* kStrictKernel = R"(#define BLOCK 256
__device__ float twice(float x) {
    return 2.0f * x;
}
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = twice(in[i]);
}
)";

// The same, but the original already lacks the return (line 3 is an assignment without effect).
const char* kFlawedKernel = R"(#define BLOCK 256
__device__ float twice(float x) {
    x = 2.0f * x;
}
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = twice(in[i]);
}
)";

class StrictDiagnostics : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
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

    CudaEvaluatorOptions options() const { return gpu_test::fake_worker_options(folder_.path() / "cases", 0); }

    gpu_test::TempFolder folder_;
};

TEST_F(StrictDiagnostics, AVariantThatDeletesAReturnDoesNotCompile) {
    const Grammar grammar = grammar_of(kStrictKernel);
    CudaEvaluator e(grammar, options());
    const BatchResult r = e.evaluate({make_variant(parse_genome("<_scale.cu_3>"), grammar), make_variant(Genome{}, grammar)}, 0);
    ASSERT_EQ(r.results.size(), 2u);
    EXPECT_EQ(r.results[0].status, EvalStatus::CompileError) << r.results[0].detail;
    EXPECT_NE(r.results[0].detail.find("missing return statement"), std::string::npos) << r.results[0].detail;
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
}

TEST_F(StrictDiagnostics, AnOriginalWithTheFlawKeepsItsVariantsCompiling) {
    const Grammar grammar = grammar_of(kFlawedKernel);
    CudaEvaluator e(grammar, options());
    Genome other_block;
    set_gene(other_block, "BLOCK", "128");
    const BatchResult r = e.evaluate({make_variant(other_block, grammar)}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_NE(r.results[0].status, EvalStatus::CompileError) << r.results[0].detail;
}

}  // namespace
}  // namespace gi
