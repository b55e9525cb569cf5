// PTX-edited variants on a real GPU (issue 46): built from the source's PTX by ptxas alone, run and
// judged like any variant: an edit that changes nothing the outputs show runs right, one that
// drops the store leaves the outputs unwritten, one that stores another value is wrong. Skips
// without a GPU.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/gpu_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "ptx/ptx_module.hpp"
#include "testcase/case_io.hpp"

namespace gi {
namespace {

const char* kGpuPtxKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

class GpuPtxEdits : public ::testing::Test {
protected:
    void SetUp() override {
        GI_REQUIRE_GPU();
        kernel_ = folder_.path() / "scale.cu";
        std::ofstream(kernel_) << kGpuPtxKernel;
        GrammarOptions options;
        options.functions = {"scale"};
        options.params = {parse_param_declaration("BLOCK=128,256", "--param")};
        grammar_ = build_grammar(read_source_file(kernel_), options);
        write_test_case(gpu_test::scale_case(1 << 16), folder_.path() / "cases");
    }
    CudaEvaluatorOptions options() const {
        CudaEvaluatorOptions o;
        o.cases = folder_.path() / "cases";
        o.function = "scale";
        o.block = "BLOCK";
        o.grid = "ceil(n/BLOCK)";
        o.worker = gpu_test::worker_path();
        return o;
    }
    // The original's PTX as the builder edits it (the GPU's architecture is sm_90 or later here).
    PtxModule original_ptx(const std::string& arch) const {
        DeviceCompileRequest request;
        request.source = make_variant(Genome{}, grammar_).source;
        request.arch = arch;
        request.ptx = true;
        const DeviceCompileResult r = compile_with_nvrtc(request);
        EXPECT_TRUE(r.ok) << r.log;
        return parse_ptx(r.ptx);
    }
    static std::vector<int> indexes(const PtxModule& m, const std::string& opcode) {
        std::vector<int> found;
        for (std::size_t i = 0; i < m.instructions.size(); ++i)
            if (m.instructions[i].opcode.rfind(opcode, 0) == 0) found.push_back(static_cast<int>(i));
        return found;
    }
    gpu_test::TempFolder folder_;
    std::filesystem::path kernel_;
    Grammar grammar_;
};

TEST_F(GpuPtxEdits, RunAndAreJudgedLikeAnyVariant) {
    CudaEvaluator e(grammar_, options());
    // The instruction indexes of this small kernel's PTX are the same for every architecture from
    // compute_70 on; the builder compiles for the GPU's own.
    const PtxModule m = original_ptx("sm_90");
    const std::vector<int> params = indexes(m, "ld.param"), stores = indexes(m, "st.global"), loads = indexes(m, "ld.global");
    ASSERT_GE(params.size(), 2u);
    ASSERT_EQ(stores.size(), 1u);
    ASSERT_EQ(loads.size(), 1u);
    const std::string loaded = m.instructions[static_cast<std::size_t>(loads[0])].operands[0];  // %f1
    const BatchResult r = e.evaluate(
        {make_variant(parse_genome("ptx:swap(" + std::to_string(params[0]) + "," + std::to_string(params[1]) + ")"), grammar_),
         make_variant(parse_genome("ptx:del(" + std::to_string(stores[0]) + ")"), grammar_),
         make_variant(parse_genome("ptx:opnd(" + std::to_string(stores[0]) + ",1," + loaded + ")"), grammar_)},
        0);
    ASSERT_EQ(r.results.size(), 3u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;  // two parameter loads swapped
    EXPECT_EQ(r.results[0].error, 0);
    EXPECT_EQ(r.results[1].status, EvalStatus::WrongAnswer) << r.results[1].detail;  // nothing stored
    // in[i] stored instead of 2*in[i]
    EXPECT_TRUE(r.results[2].status != EvalStatus::Ok || r.results[2].error > 0) << r.results[2].detail;
    EXPECT_NE(r.results[2].status, EvalStatus::CompileError) << r.results[2].detail;
}

}  // namespace
}  // namespace gi
