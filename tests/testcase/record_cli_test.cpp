// `gi-tool record` and `gi-tool accept` without a GPU: the kernel file's variables are listed by
// compiling it (NVRTC; -I and -D as the program's build has them), and a program that fails or
// records nothing gives an error naming it, never a silent empty folder.
#include <gtest/gtest.h>

#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "process/process.hpp"
#include "testcase/case_io.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;
using test::run_gi_tool;

class RecordCli : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC";
        fs::create_directories(dir_.path() / "include" / "project");
        std::ofstream(dir_.path() / "include" / "project" / "weights.cuh") << "#pragma once\n#define TAPS 5\n";
        std::ofstream(kernel()) << "#include <project/weights.cuh>\n"
                                   "__constant__ float weights[TAPS];\n"
                                   "#ifndef SCALE\n#error SCALE must be defined\n#endif\n"
                                   "__global__ void filter(float* out, const float* in) {\n"
                                   "    out[threadIdx.x] = SCALE * weights[0] * in[threadIdx.x];\n}\n";
    }
    std::string kernel() const { return (dir_.path() / "filter.cu").string(); }
    std::string out() const { return (dir_.path() / "cases").string(); }
    std::string settings() const { return " -I '" + (dir_.path() / "include").string() + "' -DSCALE=2 "; }
    TemporaryDirectory dir_{"gi-record-cli"};
};

TEST_F(RecordCli, AProgramThatFailsIsNamedWithItsStatus) {
    const test::ToolRun r = run_gi_tool("record '" + kernel() + "' --function filter" + settings() + "--out '" + out() + "' -- false");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("`false` failed (exit status 1)"), std::string::npos) << r.output;
}

TEST_F(RecordCli, AProgramThatRecordsNothingIsAnError) {
    test::ToolRun r = run_gi_tool("record '" + kernel() + "' --function filter" + settings() + "--out '" + out() + "' -- true");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("ran but recorded no launch of 'filter'"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("the launch intercept saw no kernel launched"), std::string::npos) << r.output;
    r = run_gi_tool("record '" + kernel() + "' --function filter" + settings() + "--record-with launch --out '" + out() +
                    "' -- true");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("gi::launch(kernel, \"filter\", ...)"), std::string::npos) << r.output;
    r = run_gi_tool("record '" + kernel() + "' --function filter" + settings() + "--record-with cupti --out '" + out() +
                    "' -- true");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("must be 'intercept' or 'launch', got 'cupti'"), std::string::npos) << r.output;
}

TEST_F(RecordCli, TheKernelFileCompilesWithTheProgramsIncludeFoldersAndMacros) {
    // Without -I the header is missing, without -D the file's own #error fires: each named.
    test::ToolRun r = run_gi_tool("record '" + kernel() + "' --function filter -DSCALE=2 --out '" + out() + "' -- true");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("does not compile for sm_90"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("project/weights.cuh"), std::string::npos) << r.output;
    r = run_gi_tool("record '" + kernel() + "' --function filter -I '" + (dir_.path() / "include").string() + "' --out '" +
                    out() + "' -- true");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("SCALE must be defined"), std::string::npos) << r.output;
}

// A kernel defined in a header (KERNEL reduction_kernel.cuh): where NVRTC cannot take the file (host
// headers), its variables are listed by nvcc, which refused the ".cuh" name before.
TEST_F(RecordCli, AKernelInAHeaderHasItsVariablesListed) {
    const std::string header = (dir_.path() / "scaled.cuh").string();
    std::ofstream(header) << "#include <cstdio>\n#include <vector>\n__constant__ float scale[4];\n"
                             "template <int N> __global__ void scaled(float* p) { p[threadIdx.x] *= scale[N]; }\n"
                             "inline void say() { std::vector<int> v; std::printf(\"%zu\\n\", v.size()); }\n";
    const test::ToolRun r = run_gi_tool("record '" + header + "' --function scaled --out '" + out() + "' -- true");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_EQ(r.output.find("does not compile"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ran but recorded no launch of 'scaled'"), std::string::npos) << r.output;
}

// Issue 41: the program records into a folder of the run's own, so the recorder is told where the
// cases recorded earlier are (to skip launches identical to them and count them toward the
// limit), and a run that adds nothing to them says so rather than blaming the program's launch.
TEST_F(RecordCli, TheRecorderSeesTheCasesAlreadyRecorded) {
    TestCase earlier;
    earlier.kernel = "filter";
    earlier.args = {{CaseArg::Kind::Scalar, 4, ElementType::I32, {1, 0, 0, 0}, -1, 0, false}};
    write_test_case(earlier, out());
    const fs::path seen = dir_.path() / "environment";
    const test::ToolRun r = run_gi_tool("record '" + kernel() + "' --function filter" + settings() + "--limit 5 --out '" +
                                        out() + "' -- sh -c 'printf \"%s|%s\" \"$GI_RECORD_KNOWN_DIR\" \"$GI_RECORD_LIMIT\" > \"" +
                                        seen.string() + "\"'");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_EQ(test::file_text(seen), fs::absolute(out()).string() + "|5");
    EXPECT_NE(r.output.find("recorded nothing new of 'filter': each of its launches had the same inputs as one of the 1 "
                            "cases"), std::string::npos) << r.output;
    EXPECT_EQ(list_test_cases(out(), "filter").size(), 1u);
}

TEST_F(RecordCli, UsageErrors) {
    test::ToolRun r = run_gi_tool("record '" + kernel() + "' --function filter --out '" + out() + "'");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("missing the program to run"), std::string::npos) << r.output;
    r = run_gi_tool("record '" + kernel() + "' --out '" + out() + "' -- true");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("missing required option --function"), std::string::npos) << r.output;
    r = run_gi_tool("record '" + kernel() + "' --function filter -D =1 --out '" + out() + "' -- true");
    EXPECT_EQ(r.status, 2) << r.output;
    EXPECT_NE(r.output.find("-D '=1' names no macro"), std::string::npos) << r.output;
}

TEST_F(RecordCli, AcceptNeedsTheOriginalsCasesToCompareWith) {
    const test::ToolRun r = run_gi_tool("accept '" + kernel() + "' --function filter" + settings() + "--reference '" +
                                        (dir_.path() / "none").string() + "' --out '" + out() + "' -- true");
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("none: no such folder of recorded test cases"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace gi
