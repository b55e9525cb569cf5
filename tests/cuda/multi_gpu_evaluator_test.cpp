// `--gpus`: the cuda evaluator on several GPUs of one host (cuda/multi_gpu_evaluator.hpp), with the
// fake worker pretending them ($GI_FAKE_GPUS, $GI_FAKE_GPU_NAMES, $GI_FAKE_GPU_SLOWDOWN; each worker
// logs "hello <ordinal> <name>", so a test knows which GPU each worker's runs were on).
#include "cuda/multi_gpu_evaluator.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../support/fake_worker_fixture.hpp"
#include "cli/evaluator_factory.hpp"
#include "fitness/scored.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

// BLOCK values the fake runs correctly; 96 (writes nothing) and 64 (a loop the guard stops) fail.
constexpr const char* kMultiGpuBlocks = "64,96,160,176,192,208,224,240,256,272,288,304";

class MultiGpu : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override {
        set_up(gpu_test::kScaleKernel, kMultiGpuBlocks);
        ::setenv("GI_FAKE_GPUS", "2", 1);
    }
    void TearDown() override {
        for (const char* name : {"GI_FAKE_GPUS", "GI_FAKE_GPU_NAMES", "GI_FAKE_GPU_SLOWDOWN"}) ::unsetenv(name);
        FakeWorkerEvaluatorTest::TearDown();
    }

    std::vector<Variant> blocks(const std::vector<std::string>& values) const {
        std::vector<Variant> out;
        for (const std::string& v : values) out.push_back(with_block(v));
        return out;
    }

    // The GPU each variant run logged by the fake workers was on: "<block>" -> ordinal.
    std::map<std::string, std::string> gpu_of_runs() const {
        std::map<std::string, std::string> gpu_of_pid, out;
        for (const gpu_test::FakeWorkerEvent& e : events()) {
            if (e.what == "hello") gpu_of_pid[e.pid] = e.slot;
            if (e.what == "variant") out[e.detail.substr(0, e.detail.find(','))] = gpu_of_pid.at(e.pid);
        }
        return out;
    }

    // Eight genomes the fake runs correctly, one BLOCK each.
    static std::vector<Genome> eight_genomes() {
        std::vector<Genome> genomes;
        for (const std::string v : {"160", "176", "192", "208", "224", "240", "256", "272"}) {
            Genome g;
            set_gene(g, "BLOCK", v);
            genomes.push_back(g);
        }
        return genomes;
    }

    std::unique_ptr<MultiGpuEvaluator> all_gpus(bool mixed = false) const {
        return std::make_unique<MultiGpuEvaluator>(grammar_, options(0), parse_gpu_selection("all"), mixed);
    }
};

TEST_F(MultiGpu, ABatchIsSpreadOverEveryGpuAndItsResultsComeBackInOrder) {
    if (IsSkipped()) return;
    auto e = all_gpus();
    EXPECT_EQ(e->ordinals(), (std::vector<int>{0, 1}));
    // 64 (stopped by the loop guard) and 96 (writes nothing) among variants that pass.
    const std::vector<std::string> values{"160", "64", "176", "192", "208", "224", "96", "240"};
    const BatchResult r = e->evaluate(blocks(values), 0);
    ASSERT_EQ(r.results.size(), values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        const bool fails = values[i] == "64" || values[i] == "96";
        EXPECT_EQ(r.results[i].status == EvalStatus::Ok, !fails) << i << " " << values[i] << ": " << r.results[i].detail;
    }
    // Four on each GPU, and the two that fail on different GPUs: each GPU's results went back to
    // their places.
    const std::map<std::string, std::string> gpu = gpu_of_runs();
    ASSERT_EQ(gpu.size(), values.size());
    std::map<std::string, int> runs_on;
    for (const auto& [block, ordinal] : gpu) ++runs_on[ordinal];
    EXPECT_EQ(runs_on, (std::map<std::string, int>{{"0", 4}, {"1", 4}}));
    EXPECT_NE(gpu.at("64"), gpu.at("96"));
}

TEST_F(MultiGpu, AVariantIsOnlyEverJudgedAgainstTheOriginalTimedOnItsOwnGpu) {
    if (IsSkipped()) return;
    // GPU 1 runs everything twice as fast: compared with GPU 0's original, its variants would be
    // 2x speedups and accepted, though each is exactly as fast as the original on its own GPU.
    ::setenv("GI_FAKE_GPU_SLOWDOWN", "1,0.5", 1);
    auto e = all_gpus();
    const std::vector<Genome> genomes = eight_genomes();
    const ScoredBatch batch = evaluate_genomes(*e, grammar_, genomes, 0, AcceptanceRule{});
    EXPECT_DOUBLE_EQ(batch.original.median_ms, 1.0);  // the first GPU's
    ASSERT_EQ(batch.scored.size(), genomes.size());
    for (const Scored& s : batch.scored) {
        EXPECT_EQ(s.result.status, EvalStatus::Ok) << s.result.detail;
        EXPECT_DOUBLE_EQ(s.speedup, 1.0) << genome_to_text(s.genome);
        EXPECT_FALSE(s.accepted) << genome_to_text(s.genome);
        // On the batch's scale: a time compared with another variant's in the batch compares speedups.
        EXPECT_DOUBLE_EQ(s.result.time.median_ms, 1.0);
    }
    const std::map<std::string, std::string> gpu = gpu_of_runs();
    EXPECT_EQ(gpu.at("272"), "1");  // the GPU that would have flattered it did run it
}

TEST_F(MultiGpu, SmallBatchesStayOnTheFirstGpu) {
    if (IsSkipped()) return;
    auto e = all_gpus();
    const BatchResult r = e->evaluate(blocks({"160", "176", "192", "208", "224", "240", "272"}), 0);
    ASSERT_EQ(r.results.size(), 7u);
    for (const auto& [block, gpu] : gpu_of_runs()) EXPECT_EQ(gpu, "0") << block;
    for (const EvalResult& result : r.results) EXPECT_FALSE(result.original.valid());  // the batch's original
}

TEST_F(MultiGpu, GpusOfDifferentModelsAreRefusedUnlessMixedIsAskedFor) {
    if (IsSkipped()) return;
    ::setenv("GI_FAKE_GPU_NAMES", "Fake H200,Fake A100", 1);
    auto refused = all_gpus();
    try {
        refused->evaluate(blocks({"160", "176", "192", "208", "224", "240", "256", "272"}), 0);
        ADD_FAILURE() << "GPUs of two models were used together";
    } catch (const UsageError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("--gpus all: ", 0), 0u) << what;
        EXPECT_NE(what.find("GPU 1 Fake A100"), std::string::npos) << what;
        EXPECT_NE(what.find("--gpus-mixed"), std::string::npos) << what;
    }
    ::setenv("GI_FAKE_GPU_SLOWDOWN", "1,3", 1);
    auto mixed = all_gpus(true);
    const std::vector<Genome> genomes = eight_genomes();
    const ScoredBatch batch = evaluate_genomes(*mixed, grammar_, genomes, 0, AcceptanceRule{});
    for (const Scored& s : batch.scored) EXPECT_DOUBLE_EQ(s.speedup, 1.0) << genome_to_text(s.genome);
}

TEST_F(MultiGpu, AskingForGpusTheDriverLacksNamesTheOption) {
    if (IsSkipped()) return;
    for (const std::string text : {"3", "0,2"}) {
        MultiGpuEvaluator e(grammar_, options(0), parse_gpu_selection(text), false);
        try {
            e.evaluate(blocks({"160"}), 0);
            ADD_FAILURE() << "--gpus " << text << " accepted with 2 GPUs";
        } catch (const UsageError& error) {
            EXPECT_EQ(std::string(error.what()).rfind("--gpus " + text + ": ", 0), 0u) << error.what();
        }
    }
}

TEST_F(MultiGpu, TheGateChecksEachVariantOnTheGpuThatEvaluatedIt) {
    if (IsSkipped()) return;
    const std::filesystem::path log = folder_.path() / "sanitized-on";
    const std::filesystem::path script = folder_.path() / "device-sanitizer";
    std::ofstream(script) << "#!/bin/sh\nfor a; do list=$a; done\n"
                          << "while read -r line; do echo \"${GI_WORKER_DEVICE:-unset}\" >> '" << log.string() << "'; done < \"$list\"\n"
                          << "echo \"gi-worker: ran $(grep -c . \"$list\") variant(s)\"\nexit 0\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    CudaEvaluatorOptions o = options(0);
    o.sanitizer = script.string();
    o.sanitize_sessions = 0;  // a process per batch, which the script is
    o.sanitize_batch = 1;
    MultiGpuEvaluator e(grammar_, o, parse_gpu_selection("all"), false);
    const std::vector<Variant> batch = blocks({"160", "176", "192", "208", "224", "240", "256", "272"});
    e.evaluate(batch, 0);
    const std::vector<EvalResult> verdicts = e.sanitize_many(batch, 0);
    ASSERT_EQ(verdicts.size(), batch.size());
    for (const EvalResult& v : verdicts) EXPECT_EQ(v.status, EvalStatus::Ok) << v.detail;
    std::map<std::string, int> checks_on;
    std::ifstream in(log);
    for (std::string line; std::getline(in, line);) ++checks_on[line];
    EXPECT_EQ(checks_on, (std::map<std::string, int>{{"0", 4}, {"1", 4}}));
}

TEST_F(MultiGpu, GpusOneIsTheSingleGpuEvaluatorAsBefore) {
    if (IsSkipped()) return;
    EvaluatorSettings settings;
    settings.cuda = options(0);
    settings.cuda.gpus = "1";
    auto one = make_evaluator("cuda", grammar_, settings);
    EXPECT_NE(dynamic_cast<CudaEvaluator*>(one.get()), nullptr);
    EXPECT_EQ(dynamic_cast<CudaEvaluator*>(one.get())->device(), -1);  // its workers' GPU left to them
    settings.cuda.gpus = "all";
    EXPECT_NE(dynamic_cast<MultiGpuEvaluator*>(make_evaluator("cuda", grammar_, settings).get()), nullptr);
}

}  // namespace
}  // namespace gi
