// The report's source view (issue 21): each item of the final genome applied alone, as the lines
// it changes before and after, and the page showing them.
#include "report/edit_diff.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "../support/gi_tool_run.hpp"
#include "grammar/build_grammar.hpp"
#include "report/html_report.hpp"
#include "run/record_xml.hpp"
#include "source/source_file.hpp"

namespace gi {
namespace {

const char* const kDiffKernel =
    "#define BLOCK 64\n"                                              // 1
    "__global__ void k(float* out, const float* in, int n) {\n"       // 2
    "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"                 // 3
    "    float v = in[i];\n"                                          // 4
    "    v = v * 2.0f;\n"                                             // 5
    "    out[i] = v;\n"                                               // 6
    "}\n";

Grammar grammar() {
    GrammarOptions options;
    options.functions = {"k"};
    options.params = {parse_param_declaration("BLOCK=64,128", "--param")};
    options.flags = {parse_flag_declaration("-use_fast_math", "--flag")};
    return build_grammar(make_source_file("k.cu", kDiffKernel), options);
}

TEST(ItemDiffs, EachItemAloneAsTheLinesItChanges) {
    const std::vector<ItemDiff> diffs =
        item_diffs(parse_genome("BLOCK=128 restrict=1 use_fast_math=1 <_k.cu_5> <_k.cu_6>+<_k.cu_5>"), grammar(), kDiffKernel);
    ASSERT_EQ(diffs.size(), 5u);
    EXPECT_EQ(diffs[0].item, "BLOCK=128");
    ASSERT_EQ(diffs[0].hunks.size(), 1u);
    EXPECT_EQ(diffs[0].hunks[0].first_line, 1);
    EXPECT_EQ(diffs[0].hunks[0].before, (std::vector<std::string>{"#define BLOCK 64"}));
    EXPECT_EQ(diffs[0].hunks[0].after, (std::vector<std::string>{"#define BLOCK 128"}));
    // Two slots on one line: one hunk.
    ASSERT_EQ(diffs[1].hunks.size(), 1u);
    EXPECT_EQ(diffs[1].hunks[0].first_line, 2);
    EXPECT_EQ(diffs[1].hunks[0].after,
              (std::vector<std::string>{"__global__ void k(float* __restrict__ out, const float* __restrict__ in, int n) {"}));
    EXPECT_EQ(diffs[2].item, "use_fast_math=1");
    EXPECT_TRUE(diffs[2].hunks.empty());  // a compile option
    EXPECT_EQ(diffs[3].item, "<_k.cu_5>");
    ASSERT_EQ(diffs[3].hunks.size(), 1u);
    EXPECT_EQ(diffs[3].hunks[0].before, (std::vector<std::string>{"    v = v * 2.0f;"}));
    EXPECT_EQ(diffs[3].hunks[0].after, (std::vector<std::string>{"    "}));
    ASSERT_EQ(diffs[4].hunks.size(), 1u);
    EXPECT_EQ(diffs[4].hunks[0].first_line, 6);
    EXPECT_EQ(diffs[4].hunks[0].after, (std::vector<std::string>{"    v = v * 2.0f;", "    out[i] = v;"}));
}

TEST(ItemDiffs, ThePageShowsThemOrSaysHowToGetThem) {
    RunRecord record;
    record.final_genome = "BLOCK=128 <_k.cu_5>";
    SourceView view;
    view.items = item_diffs(parse_genome(record.final_genome), grammar(), kDiffKernel);
    const std::string html = html_report(record, "run", view);
    EXPECT_NE(html.find("<span class=\"del\">- 1  #define BLOCK 64</span><span class=\"add\">+ #define BLOCK 128</span>"),
              std::string::npos);
    EXPECT_NE(html.find("<span class=\"del\">- 5      v = v * 2.0f;</span>"), std::string::npos);
    const std::string without = html_report(record, "run");
    EXPECT_NE(without.find("Give the kernel to see it: gi-tool report --out DIR KERNEL.cu"), std::string::npos);
    view.items.clear();
    view.note = "The kernel given (x.cu) is not the file this run evolved";
    EXPECT_NE(html_report(record, "run", view).find(view.note), std::string::npos);
}

// gi-tool report KERNEL.cu ...: the view for the kernel the run evolved, a note for another file.
TEST(ItemDiffs, TheCommandTakesTheKernelTheRunEvolved) {
    namespace fs = std::filesystem;
    const fs::path dir = fs::temp_directory_path() / ("gi-report-source-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir / "run");
    std::ofstream(dir / "k.cu") << kDiffKernel;
    RunRecord record;
    record.final_genome = "BLOCK=128";
    record.settings.emplace_back("kernel-sha256", grammar().source_hash);
    std::ofstream(dir / "run" / "run.xml") << run_record_document(record);
    auto page = [&] {
        std::ifstream in(dir / "run" / "report.html");
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    };
    const std::string kernel_options = " --function k --param BLOCK=64,128 --flag -use_fast_math --grid n --tolerance exact";
    test::ToolRun r = test::run_gi_tool("report --out '" + (dir / "run").string() + "' '" + (dir / "k.cu").string() + "'" + kernel_options);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(page().find("<span class=\"add\">+ #define BLOCK 128</span>"), std::string::npos);
    std::ofstream(dir / "k.cu", std::ios::app) << "// edited since\n";
    r = test::run_gi_tool("report --out '" + (dir / "run").string() + "' '" + (dir / "k.cu").string() + "'" + kernel_options);
    ASSERT_EQ(r.status, 0) << r.output;
    EXPECT_NE(page().find("is not the file this run evolved"), std::string::npos);
    EXPECT_EQ(page().find("class=\"add\""), std::string::npos);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gi
