// `gi-tool evolve --gpus` and `gi-tool cuda-bench --gpus` end to end, on two GPUs the fake worker
// pretends (tests/support/fake_worker.cpp: GI_FAKE_GPUS); compiles are real (NVRTC).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "../support/fake_worker_fixture.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

class MultiGpuCommand : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override {
        set_up(gpu_test::kScaleKernel, kGpusCommandBlocks, 2);
        ::setenv("GI_FAKE_GPUS", "2", 1);
    }
    void TearDown() override {
        ::unsetenv("GI_FAKE_GPUS");
        FakeWorkerEvaluatorTest::TearDown();
    }

    static constexpr const char* kGpusCommandBlocks = "160,176,192,208,224,240,256,272,288,304";

    // The options every run here takes: the kernel, its cases, the fake worker and a passing gate.
    std::vector<std::string> common(const std::string& command) const {
        return {command, kernel_.string(), "--function", "scale", "--param", std::string("BLOCK=") + kGpusCommandBlocks,
                "--block", "BLOCK", "--grid", "ceil(n/BLOCK)", "--cases", (folder_.path() / "cases").string(),
                "--set-aside", "0", "--worker", std::filesystem::read_symlink("/proc/self/exe").string(), "--arch", "sm_90",
                "--timeout-margin-ms", "300", "--spare-workers", "0", "--sanitizer",
                passing_sanitizer(folder_.path() / "sanitized.log"), "--sanitize-sessions", "0", "--gpus", "all"};
    }

    // How many variant runs the fake workers logged on each GPU.
    std::map<std::string, int> runs_per_gpu() const {
        std::map<std::string, std::string> gpu_of_pid;
        std::map<std::string, int> out;
        for (const gpu_test::FakeWorkerEvent& e : events()) {
            if (e.what == "hello") gpu_of_pid[e.pid] = e.slot;
            if (e.what == "variant" && gpu_of_pid.count(e.pid)) ++out[gpu_of_pid.at(e.pid)];
        }
        return out;
    }
};

TEST_F(MultiGpuCommand, EvolveSpreadsEachGenerationOverEveryGpu) {
    if (IsSkipped()) return;
    std::vector<std::string> args = common("evolve");
    for (const std::string a : {"--evaluator", "cuda", "--generations", "2", "--population", "16", "--seed", "3",
                                "--no-pre-tune", "--no-post-tune", "--no-minimise", "--quiet", "--out"})
        args.push_back(a);
    args.push_back((folder_.path() / "run").string());
    const ProcessResult r = test::gi_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    const std::map<std::string, int> runs = runs_per_gpu();
    EXPECT_GT(runs.count("1") ? runs.at("1") : 0, 4) << "GPU 1 ran too little of the generations";
    EXPECT_GT(runs.count("0") ? runs.at("0") : 0, 4);
}

TEST_F(MultiGpuCommand, AnnealGetsItsWorkersOnEveryGpu) {
    if (IsSkipped()) return;
    std::vector<std::string> args = common("evolve");
    for (const std::string a : {"--evaluator", "cuda", "--strategy", "anneal", "--workers", "1", "--generations", "3",
                                "--population", "8", "--seed", "3", "--no-pre-tune", "--no-post-tune", "--no-minimise",
                                "--quiet", "--out"})
        args.push_back(a);
    args.push_back((folder_.path() / "run").string());
    const ProcessResult r = test::gi_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    // One worker a GPU: anneal's children (one per call) run on both.
    const std::map<std::string, int> runs = runs_per_gpu();
    EXPECT_GT(runs.count("1") ? runs.at("1") : 0, 0) << "no child ran on GPU 1";
    EXPECT_GT(runs.count("0") ? runs.at("0") : 0, 0);
}

TEST_F(MultiGpuCommand, CudaBenchCountsTheVariantsOfEachGpu) {
    if (IsSkipped()) return;
    // Each of the ten BLOCK values once, in one batch: five a GPU.
    const std::filesystem::path genomes = folder_.path() / "genomes.txt";
    {
        std::ofstream list(genomes);
        for (const std::string block : {"160", "176", "192", "208", "224", "240", "256", "272", "288", "304"})
            list << "0\tBLOCK=" << block << "\n";
    }
    std::vector<std::string> args = common("cuda-bench");
    for (const std::string a : {"--genomes", genomes.c_str(), "--batch", "10"}) args.push_back(a);
    const ProcessResult r = test::gi_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_NE(r.out.find(" on 2 GPUs (0 Fake GPU, 1 Fake GPU; sm_90)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("variants per GPU: GPU 0 5 GPU 1 5"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("variants evaluated: 10 in "), std::string::npos) << r.out;
}

}  // namespace
}  // namespace gi
