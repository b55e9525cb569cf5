// `gi-tool grammar` as a user runs it: output, exit codes, --help.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

using test::ToolRun;

std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

ToolRun run_tool(const std::string& arguments) { return test::run_gi_tool("grammar " + arguments); }

std::string data(const std::string& name) { return "\"" + std::string(GI_TEST_DATA_DIR) + "/grammar/" + name + "\""; }

TEST(CmdGrammar, PrintsBnf) {
    const ToolRun run = run_tool(data("stereo_like.cu") + " --function stereoKernel --param BLOCK_W=32,128");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("<BLOCK_W> ::= \"64\" | \"32\" | \"128\""), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("<pragma_stereo_like.cu_51> ::= \"#pragma unroll 4\""), std::string::npos) << run.output;
}

TEST(CmdGrammar, SummaryCountsRulesPerKind) {
    const ToolRun run = run_tool(data("stereo_like.cu") + " --summary --no-helpers");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_EQ(run.output.rfind("stereo_like.cu: ", 0), 0u) << run.output;
    EXPECT_NE(run.output.find(" statements, "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find(" IF, "), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("3 for1, 3 for2, 3 for3, 3 pragma"), std::string::npos) << run.output;
    EXPECT_EQ(run.output.find("ssd_pixel"), std::string::npos) << "--no-helpers leaves the helpers out";
}

TEST(CmdGrammar, WritesToAFile) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("gi_cmd_grammar_test." + std::to_string(::getpid()) + ".bnf");
    const ToolRun run = run_tool(data("tricky_syntax.cu") + " -o \"" + path.string() + "\"");
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_TRUE(run.output.empty()) << run.output;
    EXPECT_NE(slurp(path).find("<IF_tricky_syntax.cu_43> ::= \"n > 1\""), std::string::npos);
    std::filesystem::remove(path);
}

TEST(CmdGrammar, HelpHasAnExample) {
    const ToolRun run = run_tool("--help");
    EXPECT_EQ(run.status, 0);
    EXPECT_NE(run.output.find("usage: gi-tool grammar KERNEL.cu"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("example:"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("--param"), std::string::npos) << run.output;
}

TEST(CmdGrammar, ExitCodes) {
    EXPECT_EQ(run_tool("").status, 2) << "no kernel file";
    EXPECT_EQ(run_tool(data("stereo_like.cu") + " --bogus").status, 2);
    EXPECT_EQ(run_tool(data("stereo_like.cu") + " --param BLOCK_W").status, 2);
    const ToolRun missing = run_tool(data("stereo_like.cu") + " --function nope");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.output.find("stereoKernel"), std::string::npos) << missing.output;
    EXPECT_EQ(run_tool("/nonexistent/k.cu").status, 1);
    EXPECT_EQ(run_tool(data("stereo_like.cu") + " -o /nonexistent/dir/out.bnf").status, 1);
}

}  // namespace
}  // namespace gi
