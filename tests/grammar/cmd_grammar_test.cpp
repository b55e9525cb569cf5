// `gi-tool grammar` as a user runs it: output, exit codes, --help.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace gi {
namespace {

struct ToolRun {
    int status = -1;
    std::string out;
};

std::string slurp(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

ToolRun run_tool(const std::string& arguments) {
    // ctest runs each test in its own process, in parallel: the file name must be unique per test.
    const auto output = std::filesystem::temp_directory_path() /
                        ("gi_cmd_grammar_test." + std::to_string(::getpid()) + ".out");
    const std::string command = std::string("\"") + GI_TOOL_PATH + "\" grammar " + arguments + " > \"" + output.string() + "\" 2>&1";
    const int raw = std::system(command.c_str());
    ToolRun run;
    run.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    run.out = slurp(output);
    std::filesystem::remove(output);
    return run;
}

std::string data(const std::string& name) { return "\"" + std::string(GI_TEST_DATA_DIR) + "/grammar/" + name + "\""; }

TEST(CmdGrammar, PrintsBnf) {
    const ToolRun run = run_tool(data("stereo_like.cu") + " --function stereoKernel --param BLOCK_W=32,128");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_NE(run.out.find("<BLOCK_W> ::= \"64\" | \"32\" | \"128\""), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("<pragma_stereo_like.cu_51> ::= \"#pragma unroll 4\""), std::string::npos) << run.out;
}

TEST(CmdGrammar, SummaryCountsRulesPerKind) {
    const ToolRun run = run_tool(data("stereo_like.cu") + " --summary --no-helpers");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_EQ(run.out.rfind("stereo_like.cu: ", 0), 0u) << run.out;
    EXPECT_NE(run.out.find(" statements, "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find(" IF, "), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("3 for1, 3 for2, 3 for3, 3 pragma"), std::string::npos) << run.out;
    EXPECT_EQ(run.out.find("ssd_pixel"), std::string::npos) << "--no-helpers leaves the helpers out";
}

TEST(CmdGrammar, WritesToAFile) {
    const auto path = std::filesystem::temp_directory_path() /
                      ("gi_cmd_grammar_test." + std::to_string(::getpid()) + ".bnf");
    const ToolRun run = run_tool(data("tricky_syntax.cu") + " -o \"" + path.string() + "\"");
    EXPECT_EQ(run.status, 0) << run.out;
    EXPECT_TRUE(run.out.empty()) << run.out;
    EXPECT_NE(slurp(path).find("<IF_tricky_syntax.cu_43> ::= \"n > 1\""), std::string::npos);
    std::filesystem::remove(path);
}

TEST(CmdGrammar, HelpHasAnExample) {
    const ToolRun run = run_tool("--help");
    EXPECT_EQ(run.status, 0);
    EXPECT_NE(run.out.find("usage: gi-tool grammar KERNEL.cu"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("example:"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("--param"), std::string::npos) << run.out;
}

TEST(CmdGrammar, ExitCodes) {
    EXPECT_EQ(run_tool("").status, 2) << "no kernel file";
    EXPECT_EQ(run_tool(data("stereo_like.cu") + " --bogus").status, 2);
    EXPECT_EQ(run_tool(data("stereo_like.cu") + " --param BLOCK_W").status, 2);
    const ToolRun missing = run_tool(data("stereo_like.cu") + " --function nope");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.out.find("stereoKernel"), std::string::npos) << missing.out;
    EXPECT_EQ(run_tool("/nonexistent/k.cu").status, 1);
    EXPECT_EQ(run_tool(data("stereo_like.cu") + " -o /nonexistent/dir/out.bnf").status, 1);
}

}  // namespace
}  // namespace gi
