// gi-tool's launch intercept on a GPU (skips elsewhere), issue 42: a program records its launches
// of a kernel without being edited or relinked. The same launches made through gi::launch and
// through <<<...>>>, cudaLaunchKernel with a void** array or cuLaunchKernel with an `extra`
// buffer give the same cases (tests/support/same_case.hpp), with the CUDA runtime linked
// statically (CMake's default) or shared, and with per-thread default streams; a program that
// uses gi::launch records each launch once; a benchmark's loop is recorded once; a launch into a
// stream being captured is made but not recorded; `gi-tool record` records an unedited program and
// names the kernels it launched when the registered one is not among them; the corpus programs
// recorded both ways (--record-with launch and the intercept) give the same cases.
#include <gtest/gtest.h>

#include <filesystem>

#include "../support/gi_tool_run.hpp"
#include "../support/gpu_fixture.hpp"
#include "../support/same_case.hpp"
#include "process/process.hpp"
#include "record/intercept_settings.hpp"
#include "testcase/case_io.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

#if defined(GI_INTERCEPT_DEMO) && defined(GI_INTERCEPT_LIBRARY)

struct DemoBuild {
    const char* name;
    const char* path;
};
const DemoBuild kDemoBuilds[] = {{"static runtime", GI_INTERCEPT_DEMO},
                                 {"shared runtime", GI_INTERCEPT_DEMO_SHARED},
                                 {"per-thread default stream", GI_INTERCEPT_DEMO_PTDS}};
const char* const kDemoKernels[] = {"scaleKernel", "sumBlocks", "vector_add", "axpyStruct"};
const char* const kVectorAddSignature = "float*;const float*;const float*;int";

std::string recorder_include() { return (fs::path(GI_SOURCE_DIR) / "gi-tool/recorder/include").string(); }

class GpuIntercept : public ::testing::Test {
protected:
    void SetUp() override { GI_REQUIRE_GPU(); }

    fs::path at(const std::string& folder) const { return folder_.path() / folder; }

    ProcessResult run(const char* program, std::vector<std::string> args,
                      std::vector<std::pair<std::string, std::string>> environment) const {
        ProcessOptions options;
        options.timeout = std::chrono::seconds(120);
        options.environment = std::move(environment);
        args.insert(args.begin(), program);
        return run_process(args, options);
    }
    // The demo recording through gi::launch into `folder`: every kernel it launches through it.
    ProcessResult with_gi_launch(const char* demo, const std::string& folder, std::vector<std::string> args) const {
        return run(demo, std::move(args), {{"GI_RECORD_DIR", at(folder).string()}, {"GI_RECORD_GLOBALS", "const:c_bias"}});
    }
    // The demo with the intercept preloaded, recording `kernel` into `folder`.
    ProcessResult intercepted(const char* demo, const std::string& kernel, const std::string& folder,
                              std::vector<std::string> args) const {
        std::vector<std::pair<std::string, std::string>> environment = {
            {"LD_PRELOAD", GI_INTERCEPT_LIBRARY},         {"GI_RECORD_BY", "intercept"},
            {"GI_RECORD_FUNCTION", kernel},               {"GI_RECORD_DIR", at(folder).string()},
            {"GI_RECORD_GLOBALS", "const:c_bias"}};
        if (kernel == "vector_add") environment.emplace_back("GI_RECORD_SIGNATURE", kVectorAddSignature);
        return run(demo, std::move(args), environment);
    }
    std::vector<fs::path> cases(const std::string& folder, const std::string& kernel) const {
        return fs::is_directory(at(folder)) ? list_test_cases(at(folder), kernel) : std::vector<fs::path>{};
    }

    gpu_test::TempFolder folder_;
};

TEST_F(GpuIntercept, TheSameLaunchesGiveTheSameCasesWhicheverWayTheyAreMade) {
    for (const DemoBuild& build : kDemoBuilds) {
        SCOPED_TRACE(build.name);
        const std::string reference = std::string("gi-launch ") + build.name;
        ProcessResult r = with_gi_launch(build.path, reference, {"--via", "launch", "--timing-loop", "3"});
        ASSERT_TRUE(r.succeeded()) << r.out << r.err;
        EXPECT_EQ(cases(reference, "scaleKernel").size(), 2u) << r.err;  // the loop's launches repeat the second
        EXPECT_EQ(cases(reference, "axpyStruct").size(), 1u) << r.err;
        for (const std::string via : {"chevron", "runtime", "driver", "launch"})
            for (const std::string kernel : kDemoKernels) {
                SCOPED_TRACE("--via " + via + ", " + kernel);
                const std::string folder = via + " " + kernel + " " + build.name;
                r = intercepted(build.path, kernel, folder, {"--via", via, "--timing-loop", "3"});
                ASSERT_TRUE(r.succeeded()) << r.out << r.err;
                EXPECT_TRUE(read_side_file(at(folder), kInterceptErrorsFile).empty()) << r.err;
                // With --via launch too: gi::launch stood aside, so each launch is there once.
                test::expect_same_cases(at(reference), at(folder), kernel);
            }
    }
}

TEST_F(GpuIntercept, ABenchmarksLoopOfIdenticalLaunchesIsRecordedOnce) {
    const ProcessResult r = intercepted(GI_INTERCEPT_DEMO, "scaleKernel", "loop", {"--via", "chevron", "--timing-loop", "50"});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    EXPECT_EQ(cases("loop", "scaleKernel").size(), 2u);
    EXPECT_NE(r.err.find("gi-intercept recording 'scaleKernel': 2 distinct launches recorded, 49 skipped as identical "
                         "to an earlier one\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(read_side_file(at("loop"), kLaunchedKernelsFile),
              (std::vector<std::string>{"scaleKernel", "sumBlocks<float,4>", "vector_add", "axpyStruct"}));
}

TEST_F(GpuIntercept, ALaunchIntoAStreamBeingCapturedIsMadeNotRecorded) {
    for (const DemoBuild& build : kDemoBuilds) {
        SCOPED_TRACE(build.name);
        const std::string folder = std::string("capture ") + build.name;
        const ProcessResult r = intercepted(build.path, "scaleKernel", folder, {"--via", "chevron", "--capture"});
        ASSERT_TRUE(r.succeeded()) << r.out << r.err;  // the graph ran and computed what it should
        EXPECT_NE(r.err.find("a launch into a stream being captured"), std::string::npos) << r.err;
        EXPECT_EQ(cases(folder, "scaleKernel").size(), 1u) << r.err;  // the plain launch after it
        EXPECT_TRUE(read_side_file(at(folder), kInterceptErrorsFile).empty()) << r.err;
    }
}

TEST_F(GpuIntercept, GiToolRecordsAProgramThatWasNotEdited) {
    const std::string source = (fs::path(GI_SOURCE_DIR) / "tests/recorder/programs/intercept_demo.cu").string();
    auto record = [&](const std::string& function, const std::string& out) {
        return test::run_gi_tool("record '" + source + "' --function '" + function + "' -I '" + recorder_include() +
                                 "' --out '" + at(out).string() + "' -- '" + GI_INTERCEPT_DEMO +
                                 "' --via chevron --timing-loop 3");
    };
    test::ToolRun r = record("sumBlocks", "template");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("2 case(s) of 'sumBlocks'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("with the module variable(s) c_bias"), std::string::npos) << r.output;
    EXPECT_EQ(read_test_case(cases("template", "sumBlocks")[0], CaseLoad::ManifestOnly).symbol,
              "_Z9sumBlocksIfLi4EEvPKT_PS0_j");
    // extern "C": described from its signature in the source.
    r = record("vector_add", "extern-c");
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(cases("extern-c", "vector_add").size(), 2u) << r.output;
    r = record("reduce7", "missing");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("the program launched scaleKernel, sumBlocks<float,4>, vector_add, axpyStruct but not "
                            "'reduce7'"),
              std::string::npos)
        << r.output;
}

#endif

#if defined(GI_CORPUS_BIN_DIR) && defined(GI_INTERCEPT_LIBRARY)

// A corpus program (tests/corpus) recorded by `gi-tool record` with gi::launch and with the
// intercept: the same cases.
struct CorpusRecording {
    const char* program;
    const char* function;
    const char* args;
    const char* options;
};
const CorpusRecording kCorpus[] = {
    {"row_filter", "rowFilter", "--width 512 --height 256 --frames 2", ""},
    {"struct_pointers", "axpyStruct", "--n 100000 --launches 2", ""},
    {"pointer_array", "sumRows", "--rows 5 --n 50000", ""},
    {"matrix_mul", "MatrixMulCUDA<16>", "--n 128", ""},
    {"tile_param", "transposeTiled", "--width 300 --height 200", ""},
    {"separable_filter", "smooth", "--n 100000 --frames 2", "--compile-option -rdc=true"},
};

TEST_F(GpuIntercept, TheCorpusProgramsRecordTheSameCasesBothWays) {
    for (const CorpusRecording& c : kCorpus) {
        SCOPED_TRACE(c.program);
        const fs::path program = fs::path(GI_CORPUS_BIN_DIR) / (std::string("corpus_") + c.program);
        if (!fs::exists(program)) GTEST_SKIP() << program << " was not built";
        const std::string source = (fs::path(GI_SOURCE_DIR) / "tests/corpus" / (std::string(c.program) + ".cu")).string();
        auto record = [&](const std::string& how, const std::string& out) {
            return test::run_gi_tool("record '" + source + "' --function '" + c.function + "' -I '" + recorder_include() +
                                     "' " + c.options + " " + how + " --out '" + at(out).string() + "' -- '" +
                                     program.string() + "' " + c.args);
        };
        const std::string with_launch = std::string(c.program) + " gi-launch", intercepted = std::string(c.program) + " intercept";
        test::ToolRun r = record("--record-with launch", with_launch);
        ASSERT_EQ(r.status, 0) << r.output;
        r = record("", intercepted);
        ASSERT_EQ(r.status, 0) << r.output;
        test::expect_same_cases(at(with_launch), at(intercepted), c.function);
    }
}

#endif

}  // namespace
}  // namespace gi
