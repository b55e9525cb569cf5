// The recorder on a GPU (skips elsewhere): gi_record_demo launches blurKernel through gi::launch;
// with GI_RECORD_DIR set its launches become test cases that replay to the recorded outputs.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/gpu_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_classify.hpp"
#include "launch/geometry.hpp"
#include "testcase/case_io.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;
using gpu_test::TempFolder;

std::string demo_path() {
    const fs::path p = fs::path(GI_TOOL_PATH).parent_path() / "recorder" / "gi_record_demo";
    return fs::exists(p) ? p.string() : "";
}

struct DemoRun {
    int status = -1;
    std::string output;
};

DemoRun run_demo(const std::string& env, const std::string& args, const fs::path& log) {
    const std::string command = env + " '" + demo_path() + "' " + args + " > '" + log.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    DemoRun r;
    r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    r.output = text.str();
    return r;
}

class GpuRecorder : public ::testing::Test {
protected:
    void SetUp() override {
        GI_REQUIRE_GPU();
        if (demo_path().empty()) GTEST_SKIP() << "gi_record_demo was not built (no CUDA compiler at build time)";
    }
    TempFolder folder_;
};

TEST_F(GpuRecorder, RecordsUpToTheLimitAndReplaysToTheOracle) {
    const fs::path cases = folder_.path() / "cases";
    const std::string env = "GI_RECORD_DIR='" + cases.string() + "' GI_RECORD_LIMIT=2";
    DemoRun r = run_demo(env, "--width 256 --height 128 --frames 3", folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    auto found = list_test_cases(cases, "blurKernel");
    ASSERT_EQ(found.size(), 2u);
    // A second run counts what is already there.
    r = run_demo(env, "--width 256 --height 128 --frames 3", folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(list_test_cases(cases, "blurKernel").size(), 2u);

    const TestCase tc = read_test_case(found[0]);
    ASSERT_EQ(tc.args.size(), 6u);
    EXPECT_EQ(tc.buffers.size(), 3u);
    EXPECT_EQ(tc.args[0].kind, CaseArg::Kind::Pointer);
    EXPECT_TRUE(tc.args[0].is_const);
    EXPECT_TRUE(tc.buffers[tc.args[0].buffer].read_only);
    EXPECT_FALSE(tc.buffers[tc.args[0].buffer].changed);
    EXPECT_TRUE(tc.buffers[tc.args[1].buffer].changed);
    EXPECT_EQ(tc.buffers[tc.args[1].buffer].element, ElementType::F32);
    EXPECT_EQ(tc.buffers[tc.args[2].buffer].element, ElementType::I32);
    EXPECT_EQ(tc.buffers[tc.args[1].buffer].size, 256u * 128u * 4u);
    EXPECT_EQ(scalar_as_integer(tc.args[3]), 256);
    EXPECT_EQ(tc.args[5].element, ElementType::F32);
    EXPECT_EQ(tc.block, (Dim3{32, 4, 1}));
    EXPECT_GT(tc.compute_capability, 0);
    // The declaration a user would write reproduces the recorded launch.
    const LaunchGeometry g = parse_launch_geometry("BLOCK_W,4", "ceil(width/BLOCK_W),ceil(height/(4*ROWS))");
    EXPECT_NO_THROW(check_recorded_geometry(g, tc, {{"BLOCK_W", 32}, {"ROWS", 4}},
                                            {"in", "out", "count", "width", "height", "threshold"}));

    // Replaying the original kernel on the case gives exactly the recorded outputs.
    if (!nvrtc_available()) return;
    std::ifstream src(fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/demo/blur_kernel.cu");
    std::stringstream text;
    text << src.rdbuf();
    DeviceCompileRequest request;
    request.source = text.str();
    const DeviceCompileResult code = compile_with_nvrtc(request);
    ASSERT_TRUE(code.ok) << code.log;
    worker::WorkerProcess w({gpu_test::worker_path(), {}, {}, {}});
    ASSERT_EQ(w.request({"load-case", {{"slot", "0"}, {"path", found[0].string()}}, {}}, std::chrono::seconds(60)).type,
              "case-loaded");
    const RunVerdict v = classify_run_reply(
        w.request({"run", {{"slot", "0"}, {"role", "original"}, {"kernel", "blurKernel"}}, code.cubin}, std::chrono::seconds(60)));
    ASSERT_EQ(v.result.status, EvalStatus::Ok) << v.result.detail;
    EXPECT_EQ(v.mismatches, 0u) << v.result.detail;
    EXPECT_EQ(v.elements, 256u * 128u + 1u);
}

TEST_F(GpuRecorder, NotRecordingWritesNothing) {
    const DemoRun r = run_demo("env -u GI_RECORD_DIR", "--width 64 --height 64 --frames 1", folder_.path() / "log");
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("pixels above threshold"), std::string::npos) << r.output;
}

TEST_F(GpuRecorder, HostPointerIsRefusedNamingTheArgument) {
    const fs::path cases = folder_.path() / "cases";
    const DemoRun r = run_demo("GI_RECORD_DIR='" + cases.string() + "'", "--width 64 --height 64 --frames 1 --host-pointer",
                               folder_.path() / "log");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("'blurKernel': argument 0 points to host memory"), std::string::npos) << r.output;
    EXPECT_TRUE(!fs::exists(cases) || fs::is_empty(cases));
}

TEST_F(GpuRecorder, TextureObjectIsRefusedNamingTheArgument) {
    const fs::path cases = folder_.path() / "cases";
    const DemoRun r = run_demo("GI_RECORD_DIR='" + cases.string() + "'", "--width 64 --height 64 --frames 1 --texture",
                               folder_.path() / "log");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("'textureKernel': argument 0 is a texture object"), std::string::npos) << r.output;
    EXPECT_EQ(list_test_cases(cases, "textureKernel").size(), 0u);
    EXPECT_EQ(list_test_cases(cases, "blurKernel").size(), 1u);
    for (const auto& entry : fs::directory_iterator(cases))
        EXPECT_NE(entry.path().filename().string().rfind(".tmp-", 0), 0u);
}

// Issue 41: a benchmark launches the kernel once to warm up and then many times on the same data.
// Only distinct launches are recorded: the warm-up (its output held other bytes before) and the
// loop's first launch; the rest are counted as skipped, in one line at exit.
TEST_F(GpuRecorder, ATimingLoopRecordsItsTwoDistinctLaunches) {
    const fs::path cases = folder_.path() / "cases";
    const std::string env = "GI_RECORD_DIR='" + cases.string() + "'";
    DemoRun r = run_demo(env, "--width 64 --height 64 --frames 0 --timing-loop 50", folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<fs::path> found = list_test_cases(cases, "scaleKernel");
    ASSERT_EQ(found.size(), 2u) << r.output;
    EXPECT_NE(r.output.find("gi::launch recording 'scaleKernel': 2 distinct launches recorded, 49 skipped as identical "
                            "to an earlier one\n"),
              std::string::npos)
        << r.output;
    const TestCase warm_up = read_test_case(found[0]);
    const TestCase loop = read_test_case(found[1]);
    const CaseBuffer& first = warm_up.buffers[warm_up.args[1].buffer];
    const CaseBuffer& second = loop.buffers[loop.args[1].buffer];
    EXPECT_TRUE(first.changed);
    EXPECT_NE(first.before, second.before);
    EXPECT_EQ(second.before, first.after);  // the loop's launches find the answer already there
    EXPECT_FALSE(second.changed);

    // Run again into the same folder: every launch repeats a case already there.
    r = run_demo(env, "--width 64 --height 64 --frames 0 --timing-loop 50", folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(list_test_cases(cases, "scaleKernel").size(), 2u);
    EXPECT_NE(r.output.find("gi::launch recording 'scaleKernel': nothing new recorded: all 51 launches had the same "
                            "inputs as one of the 2 case(s) recorded earlier"),
              std::string::npos)
        << r.output;
    // As `gi-tool record` runs it: a folder of its own, the cases recorded earlier named apart.
    const fs::path own = folder_.path() / "own";
    r = run_demo("GI_RECORD_DIR='" + own.string() + "' GI_RECORD_KNOWN_DIR='" + cases.string() + "'",
                 "--width 64 --height 64 --frames 0 --timing-loop 5", folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_TRUE(!fs::exists(own) || list_test_cases(own, "scaleKernel").empty()) << r.output;
    EXPECT_NE(r.output.find("all 6 launches had the same inputs as one of the 2 case(s) recorded earlier"), std::string::npos)
        << r.output;
}

float recorded_factor(const fs::path& folder) {
    const TestCase tc = read_test_case(folder, CaseLoad::ManifestOnly);
    float factor = 0;
    std::memcpy(&factor, tc.args.at(3).value.data(), sizeof factor);
    return factor;
}

TEST_F(GpuRecorder, LaunchesThatDifferOnlyInAScalarAreEachRecorded) {
    const fs::path cases = folder_.path() / "cases";
    const DemoRun r = run_demo("GI_RECORD_DIR='" + cases.string() + "'", "--width 64 --height 64 --frames 0 --sweep 3 --repeat 3",
                               folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<fs::path> found = list_test_cases(cases, "scaleKernel");
    ASSERT_EQ(found.size(), 3u) << r.output;
    for (std::size_t i = 0; i < found.size(); ++i) EXPECT_EQ(recorded_factor(found[i]), 1.0f + i) << found[i];
    EXPECT_NE(r.output.find("'scaleKernel': 3 distinct launches recorded, 6 skipped as identical to an earlier one\n"),
              std::string::npos)
        << r.output;
}

TEST_F(GpuRecorder, TheLimitCountsDistinctLaunches) {
    const fs::path cases = folder_.path() / "cases";
    const DemoRun r = run_demo("GI_RECORD_DIR='" + cases.string() + "' GI_RECORD_LIMIT=2",
                               "--width 64 --height 64 --frames 0 --sweep 3 --repeat 3", folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    const std::vector<fs::path> found = list_test_cases(cases, "scaleKernel");
    ASSERT_EQ(found.size(), 2u) << r.output;
    EXPECT_EQ(recorded_factor(found[0]), 1.0f);
    EXPECT_EQ(recorded_factor(found[1]), 2.0f);  // not the first factor's repeat
    EXPECT_NE(r.output.find("'scaleKernel': 2 distinct launches recorded, 2 skipped as identical to an earlier one "
                            "(GI_RECORD_LIMIT 2 reached)"),
              std::string::npos)
        << r.output;
}

TEST_F(GpuRecorder, AProgramOfIdenticalLaunchesIsToldSoOnce) {
    const fs::path cases = folder_.path() / "cases";
    const DemoRun r = run_demo("GI_RECORD_DIR='" + cases.string() + "'", "--width 64 --height 64 --frames 0 --sweep 1 --repeat 5",
                               folder_.path() / "log");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(list_test_cases(cases, "scaleKernel").size(), 1u);
    const std::string told = "gi::launch recording 'scaleKernel': all 5 launches had the same inputs";
    const std::size_t at = r.output.find(told);
    ASSERT_NE(at, std::string::npos) << r.output;
    EXPECT_EQ(r.output.find(told, at + 1), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("record the program on more inputs"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("distinct launch"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gi
