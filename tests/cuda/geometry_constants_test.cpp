// Issue 40, item 3: a registration's --block-size/--grid may name the kernel file's #define
// constants, as before the registration's block size became the cuda launch's block. Through
// the cuda evaluator (its case set, with the fake worker: no GPU) and `gi-tool cases`.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/fake_worker_fixture.hpp"
#include "../support/gi_tool_run.hpp"
#include "cuda/case_set.hpp"
#include "evaluate/evaluator.hpp"
#include "genome/genome.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"

namespace gi {
namespace {

// BLOCK_SIZE is no --param: only a constant of the file; HALF refers to it.
const char* const kDefinedBlockKernel = R"(#define BLOCK_SIZE 256
#define HALF (BLOCK_SIZE / 2)
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK_SIZE + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

// THREADS follows the parameter BLOCK.
const char* const kDerivedBlockKernel = R"(#define BLOCK 256
#define THREADS (BLOCK * 1)
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * THREADS + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

class GeometryConstants : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    Grammar without_params(const char* text) {
        std::ofstream(kernel_) << text;
        GrammarOptions go;
        go.functions = {"scale"};
        return build_grammar(read_source_file(kernel_.string()), go);
    }
};

// Was: "--block-size (x) 'BLOCK_SIZE': unknown name 'BLOCK_SIZE' at position 1 (known: arg2, n)"
// at the first case, so every evolve stopped.
TEST_F(GeometryConstants, ADefineOfTheFileThatIsNoParameterSizesTheLaunch) {
    set_up(gpu_test::kScaleKernel, "256", 1);
    if (IsSkipped()) return;
    const Grammar grammar = without_params(kDefinedBlockKernel);
    CudaEvaluatorOptions o = options(0);
    o.block = "BLOCK_SIZE";
    o.grid = "div_ceil(n, HALF * 2)";
    CudaEvaluator evaluator(grammar, o);
    EXPECT_EQ(evaluator.evaluate({make_variant(Genome{}, grammar)}, 0).results[0].status, EvalStatus::Ok);
}

TEST_F(GeometryConstants, ADefineOfAParameterFollowsTheVariantsValue) {
    set_up(kDerivedBlockKernel, "256,1024", 1);
    if (IsSkipped()) return;
    CudaEvaluatorOptions o = options(0);
    o.block = "THREADS";
    o.grid = "div_ceil(n, THREADS)";
    CudaEvaluator evaluator(grammar_, o);
    EXPECT_EQ(evaluator.evaluate({with_block("1024")}, 0).results[0].status, EvalStatus::Ok);
    bool launched_as_tuned = false;
    for (const gpu_test::FakeWorkerEvent& e : events())
        if (e.what == "variant" && e.detail == "1024,1,1") launched_as_tuned = true;
    EXPECT_TRUE(launched_as_tuned) << "THREADS = BLOCK * 1 with BLOCK=1024 is a block of 1024";
}

TEST(GeometryConstantNames, AParameterWinsOverTheFilesValueAndNonIntegersAreRefused) {
    CaseKernel kernel;
    kernel.file_macros = {{"BLOCK", "256"}, {"THREADS", "(BLOCK * 2)"}, {"WIDTH", "1024"}};
    kernel.param_texts = {{"BLOCK", "256"}};
    Genome tuned;
    set_gene(tuned, "BLOCK", "64");
    const NameValues names = kernel.params_of(tuned);
    EXPECT_EQ(names.at("BLOCK"), 64);
    EXPECT_EQ(names.at("THREADS"), 128);
    EXPECT_EQ(names.at("WIDTH"), 1024);
    Genome odd;
    set_gene(odd, "BLOCK", "sixty");
    EXPECT_THROW(kernel.params_of(odd), Error);
}

// `gi-tool cases DIR --kernel K --block ... --grid ...` checks the declaration as evolve reads it.
TEST(GeometryConstantNames, CasesChecksADeclarationOverTheFilesDefines) {
    const std::filesystem::path dir = test::fresh_temp_dir("geometry-constants");
    write_test_case(gpu_test::scale_case(4096), dir / "cases");
    std::ofstream(dir / "scale.cu") << kDefinedBlockKernel;
    const test::ToolRun run = test::run_gi_tool("cases '" + (dir / "cases").string() + "' --kernel '" +
                                                (dir / "scale.cu").string() +
                                                "' --function scale --block BLOCK_SIZE --grid 'div_ceil(n, HALF * 2)'");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("the geometry declaration reproduces every recorded launch"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace gi
