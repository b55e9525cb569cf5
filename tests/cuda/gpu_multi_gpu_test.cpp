// `--gpus 2` on real GPUs (cuda/multi_gpu_evaluator.hpp): a batch split over two, every variant
// judged against the original timed on its own GPU, the gate's checks on both. Skips, saying so,
// without a GPU or with fewer than two.
#include "cuda/multi_gpu_evaluator.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "../support/gpu_fixture.hpp"
#include "fitness/scored.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"

namespace gi {
namespace {

const char* kTwoGpuKernel = R"(#define BLOCK 256
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
)";

TEST(GpuMultiGpu, ABatchSplitOverTwoGpusIsJudgedOnEachGpusOwnOriginal) {
    GI_REQUIRE_GPU();
    gpu_test::TempFolder folder;
    const std::filesystem::path kernel = folder.path() / "scale.cu";
    std::ofstream(kernel) << kTwoGpuKernel;
    GrammarOptions grammar_options;
    grammar_options.functions = {"scale"};
    grammar_options.params = {parse_param_declaration("BLOCK=32,64,128,256,512,1024", "--param")};
    const Grammar grammar = build_grammar(read_source_file(kernel), grammar_options);
    write_test_case(gpu_test::scale_case(1 << 22), folder.path() / "cases");
    CudaEvaluatorOptions o;
    o.cases = folder.path() / "cases";
    o.function = "scale";
    o.block = "BLOCK";
    o.grid = "ceil(n/BLOCK)";
    o.worker = gpu_test::worker_path();
    o.set_aside = 0;
    {
        CudaEvaluator one(grammar, o);
        const int devices = one.device_count();
        if (devices < 2) GTEST_SKIP() << "needs 2 GPUs; the driver sees " << devices << " (run on nvidia-h200-x2 or larger)";
    }
    MultiGpuEvaluator e(grammar, o, parse_gpu_selection("2"), false);
    ASSERT_EQ(e.ordinals(), (std::vector<int>{0, 1}));
    std::vector<Genome> genomes;
    for (const std::string block : {"32", "64", "128", "256", "512", "1024", "128", "256"}) {
        Genome g;
        set_gene(g, "BLOCK", block);
        genomes.push_back(g);
    }
    // Eight genomes, six programs: three on each GPU.
    AcceptanceRule rule;
    rule.noise_k = 3;
    const ScoredBatch batch = evaluate_genomes(e, grammar, genomes, 0, rule);
    ASSERT_EQ(batch.scored.size(), genomes.size());
    int on_second = 0;
    for (const Scored& s : batch.scored) {
        EXPECT_EQ(s.result.status, EvalStatus::Ok) << genome_to_text(s.genome) << ": " << s.result.detail;
        EXPECT_EQ(s.result.error, 0) << genome_to_text(s.genome);
        on_second += s.result.original.valid() ? 1 : 0;
        // Its own GPU's original on the batch's scale: same median as the batch's.
        if (s.result.original.valid()) EXPECT_DOUBLE_EQ(s.result.original.median_ms, batch.original.median_ms);
    }
    EXPECT_GT(on_second, 0) << "no variant ran on the second GPU";
    const Scored& same = batch.scored[3];  // BLOCK 256: the original's program
    EXPECT_GT(same.speedup, 0.8) << "the original's own program, judged against its GPU's original";
    EXPECT_LT(same.speedup, 1.25);
    std::vector<Variant> variants;
    for (const Genome& g : genomes) variants.push_back(make_variant(g, grammar));
    const std::vector<EvalResult> verdicts = e.sanitize_many(variants, 0);
    ASSERT_EQ(verdicts.size(), variants.size());
    for (std::size_t i = 0; i < verdicts.size(); ++i)
        EXPECT_EQ(verdicts[i].status, EvalStatus::Ok) << genome_to_text(genomes[i]) << ": " << verdicts[i].detail;
    EXPECT_TRUE(e.validate(variants[3]).passed());
}

}  // namespace
}  // namespace gi
