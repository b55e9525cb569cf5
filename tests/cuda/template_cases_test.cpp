// A template kernel in the cuda evaluator (fake worker, no GPU): each recorded case says which
// instantiation ran (its symbol), the run uses the cases of every instantiation, or of the one the
// registration names ("K<32>"), and each case is replayed with its own instantiation.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/fake_worker_fixture.hpp"
#include "../support/toolkit.hpp"
#include "genome/genome.hpp"
#include "cli/evaluator_factory.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const char* const kTemplate = R"(#define BLOCK 256
template <int SCALE>
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = SCALE * in[i];
}
)";

class TemplateCases : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    // `text` as the kernel file, registered as FUNCTION "scale<FACTOR>" with PARAMS BLOCK and FACTOR.
    Grammar factor_grammar(const std::string& text) {
        std::ofstream(kernel_) << text;
        GrammarOptions go;
        go.functions = {"scale<FACTOR>"};
        go.params = {parse_param_declaration("BLOCK=64,256", "--param"), parse_param_declaration("FACTOR=2,3,5", "--param")};
        return build_grammar(read_source_file(kernel_.string()), go);
    }
    CudaEvaluatorOptions factor_options() const {
        CudaEvaluatorOptions o = options(0);
        o.function = "scale<FACTOR>";
        o.block = "BLOCK";
        return o;
    }
    void SetUp() override {
        set_up(kTemplate, "64,256", 0);
        if (IsSkipped()) return;
        for (const char* symbol : {"_Z5scaleILi2EEvPfPKfi", "_Z5scaleILi3EEvPfPKfi", "_Z5scaleILi3EEvPfPKfi"}) {
            TestCase tc = gpu_test::scale_case(1024);
            tc.symbol = symbol;
            write_test_case(tc, folder_.path() / "cases");
        }
    }
};

TEST_F(TemplateCases, EveryInstantiationsCasesOrTheOneNamed) {
    if (IsSkipped()) return;
    CudaEvaluatorOptions o = options(0);
    EXPECT_EQ(CudaEvaluator(grammar_, o).case_count(), 3);
    o.function = "scale<3>";
    EXPECT_EQ(CudaEvaluator(grammar_, o).case_count(), 2);
    o.function = "scale<2>";
    CudaEvaluator two(grammar_, o);
    EXPECT_EQ(two.case_count(), 1);
    EXPECT_EQ(two.evaluate({with_block("256")}, 0).results[0].status, EvalStatus::Ok);
    o.function = "scale<7>";
    EXPECT_THROW(CudaEvaluator(grammar_, o), Error);  // no case of that instantiation
}

// gi-tool evolve --function "scale<3>": the instantiation reaches the evaluator (it had been lost
// between the grammar's options and the evaluator's, and every instantiation's cases were used).
TEST_F(TemplateCases, TheFunctionOptionReachesTheEvaluator) {
    if (IsSkipped()) return;
    EvaluatorSettings options;
    options.cuda.cases = folder_.path() / "cases";
    options.cuda.set_aside = 0;
    options.kernel_path = kernel_.string();
    options.function = "scale<3>";
    EXPECT_EQ(make_evaluator("cuda", grammar_, options)->case_count(), 2);
    options.function = "scale";
    EXPECT_EQ(make_evaluator("cuda", grammar_, options)->case_count(), 3);
}

// A template argument that is a parameter (FUNCTION "scale<FACTOR>", PARAMS FACTOR): the cases are
// those of the instantiation the default names, and each variant compiles and runs its own.
TEST_F(TemplateCases, ATemplateArgumentThatIsAParameterFollowsEachVariant) {
    if (IsSkipped()) return;
    const Grammar grammar = factor_grammar(std::string("#define FACTOR 2\n") + kTemplate);
    CudaEvaluatorOptions o = factor_options();
    CudaEvaluator e(grammar, o);
    EXPECT_EQ(e.case_count(), 1);  // the scale<2> case: FACTOR's default
    Genome genome;
    set_gene(genome, "FACTOR", "5");
    const BatchResult r = e.evaluate({make_variant(genome, grammar), make_variant(Genome{}, grammar)}, 0);
    ASSERT_EQ(r.results.size(), 2u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    std::vector<std::string> kernels;
    for (const gpu_test::FakeWorkerEvent& event : events())
        if (event.what == "kernel") kernels.push_back(event.detail);
    // The variant with FACTOR=5 ran scale<5>, which its module holds; the unchanged one scale<2>.
    EXPECT_EQ(kernels, (std::vector<std::string>{"scale<5>:in-module", "scale<2>:in-module"}));

    // nvcc emits only what something instantiates; no host code here names scale<5>.
    if (!test::have_nvcc()) return;
    o.nvcc_only = true;
    CudaEvaluator by_nvcc(grammar, o);
    set_gene(genome, "FACTOR", "3");
    EXPECT_EQ(by_nvcc.evaluate({make_variant(genome, grammar)}, 0).results[0].status, EvalStatus::Ok);
    kernels.clear();
    for (const gpu_test::FakeWorkerEvent& event : events())
        if (event.what == "kernel") kernels.push_back(event.detail);
    ASSERT_EQ(kernels.size(), 3u);
    EXPECT_EQ(kernels.back(), "scale<3>:in-module");
    const ValidationReport report = by_nvcc.validate(make_variant(genome, grammar));
    EXPECT_EQ(report.built_by, "nvcc, the whole file");
}

// A template kernel keeps -Ofc guarded builds: the original's fast-compiled guarded build holds the
// instantiation its cases ran (scale<2>, FACTOR's default) and is checked on it before any variant.
TEST_F(TemplateCases, TheFastGuardedBuildOfATemplateKernelIsCheckedOnItsInstantiation) {
    if (IsSkipped()) return;
    const Grammar grammar = factor_grammar("#define FACTOR 2\n#define BLOCK 256\ntemplate <int SCALE>\n"
                                           "__global__ void scale(float* out, const float* in, int n) {\n"
                                           "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"
                                           "    for (int k = 0; k < 1; k++)\n        if (i < n) out[i] = SCALE * in[i];\n}\n");
    CudaEvaluator e(grammar, factor_options());
    ::testing::internal::CaptureStderr();
    const BatchResult r = e.evaluate({make_variant(Genome{}, grammar)}, 0);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(e.stats().build.guard_options, "-Ofc=mid") << err;
    std::vector<std::string> kernels;
    for (const gpu_test::FakeWorkerEvent& event : events())
        if (event.what == "kernel") kernels.push_back(event.detail);
    ASSERT_FALSE(kernels.empty());
    EXPECT_EQ(kernels.front(), "scale<2>:in-module");  // the original's guarded check
}

TEST(TemplateArguments, AreSplitAndReplacedByParameterValues) {
    EXPECT_EQ(template_arguments("K<32, float>"), (std::vector<std::string>{"32", "float"}));
    EXPECT_EQ(template_arguments("K< TILE >"), (std::vector<std::string>{"TILE"}));
    EXPECT_EQ(template_arguments("K<A<1, 2>, (3, 4)>"), (std::vector<std::string>{"A<1, 2>", "(3, 4)"}));
    EXPECT_TRUE(template_arguments("k").empty());
    const std::map<std::string, std::string> values{{"TILE", "16"}, {"REAL", "double"}};
    EXPECT_EQ(with_template_arguments("MatrixMulCUDA<TILE>", values), "MatrixMulCUDA<16>");
    EXPECT_EQ(with_template_arguments("K<TILE, REAL>", values), "K<16, double>");
    EXPECT_EQ(with_template_arguments("K<TILE * 2>", values), "K<TILE * 2>");  // only a parameter alone
    EXPECT_EQ(with_template_arguments("K<32>", values), "K<32>");
    EXPECT_EQ(with_template_arguments("stereo", values), "stereo");
}

TEST_F(TemplateCases, ACaseThatDoesNotSayWhichInstantiationRanIsRefused) {
    if (IsSkipped()) return;
    write_test_case(gpu_test::scale_case(1024), folder_.path() / "cases");  // no symbol
    try {
        CudaEvaluator e(grammar_, options(0));
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("'scale' is a template, and this case does not say which instantiation"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Replay runs one kernel: a grammar holding two would let edits to the second go unchecked.
TEST(CudaEvaluatorKernels, AGrammarOfTwoKernelsIsRefused) {
    GrammarOptions options;
    options.functions = {"partial_sums", "final_sum"};
    const Grammar grammar =
        build_grammar(read_source_file((std::filesystem::path(GI_SOURCE_DIR) / "tests/corpus/two_kernels.cu").string()), options);
    CudaEvaluatorOptions o;
    o.cases = "/nonexistent";
    try {
        CudaEvaluator e(grammar, o);
        FAIL() << "no error";
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("the grammar holds the kernels 'partial_sums' and 'final_sum'"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("evolve one kernel at a time"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gi
