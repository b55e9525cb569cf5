#include <gtest/gtest.h>

#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

const std::string kMutantsKernelPath = std::string(GI_TEST_DATA_DIR) + "/variant/scale.cu";

ProcessResult tool(std::vector<std::string> args) { return test::gi_tool(std::move(args)); }

// A stand-in compiler that rejects variants holding a pragma, so the report has both outcomes
// without the cost of nvcc.
std::string pragma_refusing_nvcc(const std::filesystem::path& dir) {
    const std::filesystem::path script = dir / "fake-nvcc";
    std::ofstream(script) << "#!/bin/sh\nfor last; do :; done\n"
                             "if grep -q '#pragma unroll' \"$last\"; then echo \"$last(13): error: no pragmas today\" >&2; exit 2; fi\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    return script.string();
}

TEST(CmdMutants, ReportsTheShareThatCompilesPerKindOfEdit) {
    TemporaryDirectory dir("gi-test");
    const ProcessResult r = tool({"mutants", kMutantsKernelPath, "--count", "1000", "--nvcc", pragma_refusing_nvcc(dir.path()), "--jobs", "3",
                                  "--show-failures", "2"});
    ASSERT_TRUE(r.succeeded()) << r.err << r.out;
    // scale.cu has 17 pragma settings among its legal edits; --count above their number takes them all.
    EXPECT_NE(r.out.find("  pragma   0/17 (0.0%)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  delete   "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("variant.cu(13): error: no pragmas today"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("... and 15 more"), std::string::npos) << r.out;
}

TEST(CmdMutants, SameSeedSameReportAndMinRateFails) {
    TemporaryDirectory dir("gi-test");
    const std::vector<std::string> args = {"mutants", kMutantsKernelPath, "--count", "12", "--seed", "9", "--nvcc", pragma_refusing_nvcc(dir.path())};
    const ProcessResult a = tool(args), b = tool(args);
    ASSERT_TRUE(a.succeeded()) << a.err;
    EXPECT_EQ(a.out, b.out);
    auto strict = args;
    strict.insert(strict.end(), {"--min-rate", "100", "--weighting", "uniform", "--count", "1000"});
    const ProcessResult c = tool(strict);
    EXPECT_EQ(c.exit_code, 1) << c.out;
    EXPECT_NE(c.err.find("below --min-rate"), std::string::npos) << c.err;
}

TEST(CmdMutants, OriginalThatDoesNotCompileIsReported) {
    TemporaryDirectory dir("gi-test");
    const std::filesystem::path script = dir.path() / "broken-nvcc";
    std::ofstream(script) << "#!/bin/sh\necho 'fatal error: cuda_runtime.h: No such file' >&2\nexit 1\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
    const ProcessResult r = tool({"mutants", kMutantsKernelPath, "--count", "3", "--nvcc", script.string()});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("the unedited kernel does not compile"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("cuda_runtime.h"), std::string::npos) << r.err;
}

TEST(CmdMutants, UsageErrors) {
    EXPECT_EQ(tool({"mutants", kMutantsKernelPath, "--count", "0"}).exit_code, 2);
    EXPECT_EQ(tool({"mutants", kMutantsKernelPath, "--arch", "sm90"}).exit_code, 2);
    EXPECT_EQ(tool({"mutants", kMutantsKernelPath, "--weighting", "fair"}).exit_code, 2);
    EXPECT_EQ(tool({"mutants", kMutantsKernelPath, "--jobs", "x"}).exit_code, 2);
    EXPECT_EQ(tool({"mutants"}).exit_code, 2);
    const ProcessResult help = tool({"mutants", "--help"});
    EXPECT_TRUE(help.succeeded());
    EXPECT_NE(help.out.find("example:"), std::string::npos);
}

}  // namespace
}  // namespace gi
