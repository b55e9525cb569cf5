// Issue 39, probe row B6, as the probe ran it: `gi-tool report --out RUN -o KERNEL.cu` without the
// kernel among report's arguments. The run record keeps only the kernel's sha256, so the output
// rule could not know the file was the kernel, and the page replaced it. The page now replaces only
// an earlier page, and never a file of the run's own names, existing or not.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

TEST(ReportOutput, Class5_B6_TheKernelNotNamedToReportIsNotReplacedEither) {
    const fs::path dir = test::fresh_temp_dir("gi-report-output");
    fs::create_directories(dir);
    const fs::path kernel = dir / "k.cu";
    fs::copy_file(fs::path(GI_TEST_DATA_DIR) / "search" / "small.cu", kernel);
    const std::string kernel_text = test::file_text(kernel);
    const fs::path run = dir / "run";
    ProcessResult r = test::gi_tool({"evolve", kernel.string(), "--function", "scale", "--param", "BLOCK=32,64,128",
                                     "--evaluator", "fake", "--generations", "2", "--population", "4", "--quiet", "--out",
                                     run.string()});
    ASSERT_TRUE(r.succeeded()) << r.out << r.err;

    r = test::gi_tool({"report", "--out", run.string(), "-o", kernel.string()});
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find("the file exists and is not a page gi-tool report wrote"), std::string::npos) << r.err;
    EXPECT_EQ(test::file_text(kernel), kernel_text);

    // A page it wrote is replaced, the default and elsewhere alike.
    ASSERT_TRUE(test::gi_tool({"report", "--out", run.string()}).succeeded());
    ASSERT_TRUE(test::gi_tool({"report", "--out", run.string()}).succeeded());
    const fs::path page = dir / "page.html";
    ASSERT_TRUE(test::gi_tool({"report", "--out", run.string(), "-o", page.string()}).succeeded());
    r = test::gi_tool({"report", "--out", run.string(), "-o", page.string()});
    EXPECT_TRUE(r.succeeded()) << r.out << r.err;

    // The run's own names, also where no such file exists yet (SQLite's write-ahead log).
    for (const char* name : {"history.sqlite-wal", "history.sqlite-journal"}) {
        r = test::gi_tool({"report", "--out", run.string(), "-o", (run / name).string()});
        EXPECT_EQ(r.exit_code, 2) << name << "\n" << r.out << r.err;
        EXPECT_FALSE(fs::exists(run / name)) << name;
    }
}

}  // namespace
}  // namespace gi
