#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "../grammar/grammar_test_util.hpp"
#include "../support/gi_tool_run.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

const std::string kApplyKernelPath = std::string(GI_TEST_DATA_DIR) + "/variant/scale.cu";

ProcessResult tool(std::vector<std::string> args) { return test::gi_tool(std::move(args)); }


TEST(CmdApply, WritesTheVariantAndPrintsItsCompileOptions) {
    TemporaryDirectory dir("gi-test");
    const std::string out = (dir.path() / "v.cu").string();
    const ProcessResult r = tool({"apply", kApplyKernelPath, "--param", "BLOCK=64,128,256", "--flag", "-use_fast_math",
                                  "--genome", "BLOCK=256 use_fast_math=1 <_scale.cu_11>", "-o", out});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_NE(r.out.find("compile options: -use_fast_math"), std::string::npos) << r.out;
    const std::string variant = test::file_text(out);
    EXPECT_EQ(variant.rfind("// gi-optimize variant: BLOCK=256 use_fast_math=1 <_scale.cu_11>\n", 0), 0u);
    EXPECT_NE(variant.find("#define BLOCK 256\n"), std::string::npos);
    EXPECT_EQ(variant.find("__syncthreads();"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
}

TEST(CmdApply, EmptyGenomeFromAFileReproducesTheKernel) {
    TemporaryDirectory dir("gi-test");
    std::ofstream(dir.path() / "g.txt") << "\n";
    const ProcessResult r = tool({"apply", kApplyKernelPath, "--genome-file", (dir.path() / "g.txt").string(), "--out", "-"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_EQ(r.out, "// gi-optimize variant: \n" + test::file_text(kApplyKernelPath));
    EXPECT_NE(r.err.find("compile options: (none)"), std::string::npos) << r.err;
}

TEST(CmdApply, ReportsSkippedEditsOnStderr) {
    const ProcessResult r = tool({"apply", kApplyKernelPath, "--genome", "<_scale.cu_11> <_scale.cu_11><_scale.cu_13>", "-o", "-"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_NE(r.err.find("skipped edit <_scale.cu_11><_scale.cu_13>"), std::string::npos) << r.err;
}

// A transformation an edit made impossible is reported with its own reason, not as an edit whose
// target an earlier edit removed.
TEST(CmdApply, ATransformationAnEditTurnedOffIsReportedWithItsReason) {
    TemporaryDirectory dir("gi-test");
    const std::filesystem::path kernel = dir.path() / "k.cu";
    const std::string text =
        "__global__ void b(float* x, int n) {\n"
        "    for (int i = 0; i < n; ++i) {\n"
        "        x[i] = 0;\n"
        "    }\n"
        "    for (int k = 0; k < n; ++k) {\n"
        "        if (x[k] > 1) break;\n"
        "    }\n"
        "}\n";
    std::ofstream(kernel) << text;
    const Rule* brk = test::rule_with_text(test::grammar_of(text), "break;");
    ASSERT_TRUE(brk);
    const ProcessResult r = tool({"apply", kernel.string(), "--genome", "unroll_k.cu_2=4 <_k.cu_3>+<" + brk->id + ">", "-o", "-"});
    ASSERT_TRUE(r.succeeded()) << r.err;
    EXPECT_NE(r.err.find("skipped setting unroll_k.cu_2=4 (not applied: its body can leave or skip an iteration ('break'))\n"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("already deleted or replaced"), std::string::npos) << r.err;
}

TEST(CmdApply, InvalidGenomeListsEveryProblemAndFails) {
    const ProcessResult r = tool({"apply", kApplyKernelPath, "--genome", "ROWS=3 <_scale.cu_99> <_scale.cu_10><_scale.cu_14>", "-o", "-"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("3 problems"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("ROWS=3"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("<_scale.cu_99>"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("break/continue"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
}

TEST(CmdApply, MalformedGenomeTextFails) {
    const ProcessResult r = tool({"apply", kApplyKernelPath, "--genome", "<_scale.cu_11", "-o", "-"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("unterminated"), std::string::npos) << r.err;
}

TEST(CmdApply, UsageErrors) {
    EXPECT_EQ(tool({"apply", kApplyKernelPath, "-o", "-"}).exit_code, 2) << "no genome";
    EXPECT_EQ(tool({"apply", kApplyKernelPath, "--genome", "", "--genome-file", "g", "-o", "-"}).exit_code, 2) << "both";
    EXPECT_EQ(tool({"apply", kApplyKernelPath, "--genome", ""}).exit_code, 2) << "no output";
    EXPECT_EQ(tool({"apply", "--genome", "", "-o", "-"}).exit_code, 2) << "no kernel";
    EXPECT_EQ(tool({"apply", kApplyKernelPath, "--genome", "", "-o", "-", "--bogus"}).exit_code, 2);
    EXPECT_EQ(tool({"apply", kApplyKernelPath, "--genome-file", "/nonexistent/g.txt", "-o", "-"}).exit_code, 1);
    EXPECT_EQ(tool({"apply", kApplyKernelPath, "--genome", "", "-o", "/nonexistent/dir/v.cu"}).exit_code, 1);
}

TEST(CmdApply, HelpHasAnExample) {
    const ProcessResult r = tool({"apply", "--help"});
    EXPECT_TRUE(r.succeeded());
    EXPECT_NE(r.out.find("example:"), std::string::npos);
    EXPECT_NE(r.out.find("--genome-file"), std::string::npos);
}

}  // namespace
}  // namespace gi
