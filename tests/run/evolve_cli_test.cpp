// The real `gi-tool evolve` command: options, errors, and a run killed with SIGKILL and resumed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <thread>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/atomic_file.hpp"
#include "../support/gi_tool_run.hpp"

extern char** environ;

namespace gi {
namespace {

namespace fs = std::filesystem;

using test::ToolRun;

ToolRun run_tool(const std::string& arguments) { return test::run_gi_tool(arguments); }

std::string kernel() { return std::string(GI_TEST_DATA_DIR) + "/search/small.cu"; }

std::string kernel_options() { return kernel() + " --function scale --param BLOCK=32,64,128 --param ROWS=1..8"; }

std::string record_without_wall(const fs::path& dir) {
    return std::regex_replace(read_text_file(dir / "run.xml"), std::regex("<wall [^>]*/>"), "");
}

int checkpointed_generations(const fs::path& dir) {
    std::error_code ec;
    if (!fs::exists(dir / "checkpoint.xml", ec)) return -1;
    std::smatch match;
    const std::string text = read_text_file(dir / "checkpoint.xml");
    static const std::regex next("next-generation=\"([0-9]+)\"");
    return std::regex_search(text, match, next) ? std::stoi(match[1]) : -1;
}

TEST(EvolveCommand, HelpShowsOptionsAndAnExample) {
    const ToolRun run = run_tool("evolve --help");
    EXPECT_EQ(run.status, 0);
    for (const char* text : {"--evaluator", "--generations", "--population", "--seed", "--time-limit", "--resume",
                             "--max-error", "--strategy gp", "example:", "fake", "compile-only", "cuda"})
        EXPECT_NE(run.output.find(text), std::string::npos) << text << " missing from:\n" << run.output;
}

TEST(EvolveCommand, BadInputsAreUsageErrorsThatSayWhatIsWrong) {
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-bad");
    const std::string base = kernel_options() + " --out " + dir.string();
    const std::vector<std::pair<std::string, std::string>> cases{
        {base + " --evaluator fake --strategy annealing", "unknown strategy 'annealing'"},
        {base + " --evaluator magic", "unknown evaluator 'magic'"},
        {base + " --evaluator cuda", "--evaluator cuda needs --cases DIR"},
        {base + " --evaluator fake --cases somewhere", "--cases does not apply to --evaluator fake"},
        {base + " --evaluator fake --generations many", "--generations needs an integer"},
        {base + " --evaluator fake --population 1", "--population must be between 2"},
        {base + " --evaluator fake --max-error -1", "--max-error"},
        {base + " --evaluator fake --noise-k x", "--noise-k needs a number"},
        {base + " --evaluator fake --time-limit -5", "--time-limit"},
        {base + " --evaluator fake --resume", "no run to resume"},
        {base + " --evaluator fake --resume --restart", "only one of --resume and --restart"},
        {base + " --evaluator fake --pre-tune --no-pre-tune", "only one of --pre-tune and --no-pre-tune"},
        {base + " --evaluator fake --fake colour=red", "unknown fake-evaluator setting 'colour'"},
        {base + " --evaluator compile-only --fake seed=2", "--fake does not apply to --evaluator compile-only"},
        {base + " --evaluator fake --arch sm_90", "--arch does not apply to --evaluator fake"},
        {kernel_options() + " --evaluator fake", "missing required option --out"},
        {"--function scale --evaluator fake --out " + dir.string(), "missing KERNEL.cu"},
        {base, "missing required option --evaluator"},
        {base + " --evaluator fake --colour", "unknown option '--colour'"},
        {base + " --evaluator fake --generations 0 --tune-shard 2", "--tune-shard needs K/N (part K of N, e.g. 2/4), got '2'"},
        {base + " --evaluator fake --generations 0 --tune-shard 2/x", "--tune-shard needs K/N"},
        {base + " --evaluator fake --generations 0 --tune-shard 5/4", "--tune-shard K/N needs 1 <= K <= N, got 5/4"},
        {base + " --evaluator fake --generations 0 --tune-shard 0/4", "needs 1 <= K <= N"},
        {base + " --evaluator fake --tune-shard 1/4", "--tune-shard splits a parameter sweep run with --generations 0"},
        {base + " --evaluator fake --generations 0 --no-pre-tune --tune-shard 1/2", "(and pre-tuning on)"},
    };
    for (const auto& [arguments, expected] : cases) {
        const ToolRun run = run_tool("evolve " + arguments);
        EXPECT_EQ(run.status, 2) << arguments << "\n" << run.output;
        EXPECT_NE(run.output.find(expected), std::string::npos) << arguments << "\n" << run.output;
    }
    EXPECT_FALSE(fs::exists(dir / "checkpoint.xml"));
    fs::remove_all(dir);
}

// A build's .registration file carries --grid and --tolerance; every evaluator takes them, so the
// file works as it is with the fake and compile-only evaluators too (issue 17).
TEST(EvolveCommand, RegistrationOptionsAreAcceptedByEveryEvaluator) {
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-registration");
    const ToolRun run = run_tool("evolve " + kernel_options() + " --block-size BLOCK --grid '(n + BLOCK - 1) / BLOCK' "
                                 "--tolerance exact --tolerance out:abs=1e-3 --evaluator fake --generations 1 "
                                 "--population 4 --out " + dir.string());
    EXPECT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("best speedup:"), std::string::npos) << run.output;
    fs::remove_all(dir);
}

TEST(EvolveCommand, ASweepInPartsSaysWhichPart) {
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-shard");
    const ToolRun run = run_tool("evolve " + kernel_options() + " --evaluator fake --generations 0 --tune-max 1000 "
                                 "--tune-shard 2/3 --no-post-tune --out " + dir.string());
    ASSERT_EQ(run.status, 0) << run.output;
    // BLOCK x ROWS = 3 x 8 = 24 points, 23 besides the start; part 2 has every third from the second.
    EXPECT_NE(run.output.find("pre-tune: part 2 of 3 of an exhaustive sweep: 8 of 24 points"), std::string::npos) << run.output;
    EXPECT_NE(read_text_file(dir / "run.xml").find("<setting name=\"tune-shard\" value=\"2/3\"/>"), std::string::npos);
    fs::remove_all(dir);
}

TEST(EvolveCommand, RefusesAnotherRunsCheckpointAndAnOccupiedDirectory) {
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-foreign");
    const std::string run_options = kernel_options() + " --evaluator fake --generations 1 --population 4 --out " + dir.string();
    ASSERT_EQ(run_tool("evolve " + run_options + " --seed 1 --quiet").status, 0);
    ToolRun run = run_tool("evolve " + run_options + " --seed 2 --resume");
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("seed: the checkpoint has '1', this run has '2'"), std::string::npos) << run.output;
    run = run_tool("evolve " + kernel() + " --function scale --evaluator fake --generations 1 --population 4 --seed 1 "
                   "--resume --out " + dir.string());
    EXPECT_EQ(run.status, 1) << run.output;
    EXPECT_NE(run.output.find("grammar-shape"), std::string::npos) << run.output;
    run = run_tool("evolve " + run_options + " --seed 1");
    EXPECT_EQ(run.status, 2) << run.output;
    EXPECT_NE(run.output.find("already holds a run"), std::string::npos) << run.output;
    EXPECT_EQ(run_tool("evolve " + run_options + " --seed 1 --restart --quiet").status, 0);
    fs::remove_all(dir);
}

TEST(EvolveCommand, ARunKilledWithSigkillResumesToTheSameResult) {
    const fs::path whole = test::fresh_temp_dir("gi-evolve-cli-whole"), killed = test::fresh_temp_dir("gi-evolve-cli-killed");
    const std::string common = kernel_options() + " --evaluator fake --fake seed=5 --generations 8 --population 8 "
                                                  "--seed 11 --quiet";
    const ToolRun reference = run_tool("evolve " + common + " --out " + whole.string());
    ASSERT_EQ(reference.status, 0) << reference.output;

    // The same run, slowed down so it can be killed between generations 2 and 8.
    std::vector<std::string> words{GI_TOOL_PATH, "evolve", kernel(), "--function", "scale", "--param", "BLOCK=32,64,128",
                                   "--param", "ROWS=1..8", "--evaluator", "fake", "--fake", "seed=5", "--fake",
                                   "delay-ms=150", "--generations", "8", "--population", "8", "--seed", "11",
                                   "--quiet", "--out", killed.string()};
    std::vector<char*> argv;
    for (std::string& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (checkpointed_generations(killed) < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the run finished before it could be killed";
    const int done = checkpointed_generations(killed);
    EXPECT_GE(done, 2);
    EXPECT_LT(done, 8);

    const ToolRun resumed = run_tool("evolve " + common + " --resume --out " + killed.string());
    ASSERT_EQ(resumed.status, 0) << resumed.output;
    EXPECT_EQ(read_text_file(killed / "best.genome"), read_text_file(whole / "best.genome"));
    EXPECT_EQ(read_text_file(killed / "best.cu"), read_text_file(whole / "best.cu"));
    EXPECT_EQ(record_without_wall(killed), record_without_wall(whole));
    for (const auto& entry : fs::directory_iterator(killed))
        EXPECT_EQ(entry.path().string().find(".tmp"), std::string::npos) << "left behind: " << entry.path();
    fs::remove_all(whole);
    fs::remove_all(killed);
}

TEST(EvolveCommand, PrintsASummaryAndWritesTheOutputs) {
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-summary");
    const ToolRun run = run_tool("evolve " + kernel_options() + " --evaluator fake --generations 3 --population 6 "
                                 "--seed 4 --out " + dir.string());
    ASSERT_EQ(run.status, 0) << run.output;
    for (const char* text : {"generation 1/3", "generations:", "variants evaluated:", "evaluated per minute:",
                             "best speedup:", "final genome:", "parameter tuning alone:"})
        EXPECT_NE(run.output.find(text), std::string::npos) << text << " missing from:\n" << run.output;
    for (const char* file : {"best.cu", "best.genome", "run.xml", "checkpoint.xml"})
        EXPECT_TRUE(fs::exists(dir / file)) << file;
    EXPECT_EQ(read_text_file(dir / "best.cu").rfind("// gi-optimize variant: ", 0), 0u);
    fs::remove_all(dir);
}

// Issue 21: at a terminal (a build in Ninja's console pool) the generation lines update one line;
// in a log each is a line of its own, with the elapsed time against the budget.
TEST(EvolveCommand, GenerationLinesUpdateInPlaceOnlyAtATerminal) {
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-terminal");
    const std::string arguments = "evolve " + kernel_options() + " --evaluator fake --generations 3 --population 6 "
                                  "--time-limit 600 --seed 4 --out " + dir.string();
    const ToolRun plain = run_tool(arguments);
    ASSERT_EQ(plain.status, 0) << plain.output;
    EXPECT_EQ(plain.output.find('\r'), std::string::npos);
    EXPECT_TRUE(std::regex_search(plain.output, std::regex("\ngeneration 2/3 \\[[0-9]+ of 600 s\\]: "))) << plain.output;
    if (std::system("command -v script > /dev/null 2>&1") != 0) GTEST_SKIP() << "no script(1) to give gi-tool a terminal";
    const fs::path log = dir.string() + "-tty.log";
    const std::string command = "script -qec \"'" + std::string(GI_TOOL_PATH) + "' " + arguments +
                                " --restart\" /dev/null > '" + log.string() + "' 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << read_text_file(log);
    const std::string tty = read_text_file(log);
    EXPECT_NE(tty.find("\r\033[Kgeneration 2/3"), std::string::npos) << tty;
    fs::remove_all(dir);
    fs::remove(log);
}

TEST(EvolveCommand, CompileOnlyReportsTheShareThatCompiles) {
    if (::access("/usr/local/cuda/bin/nvcc", X_OK) != 0 && std::system("command -v nvcc > /dev/null 2>&1") != 0)
        GTEST_SKIP() << "no nvcc: the compile-only evaluator needs the CUDA toolkit";
    const fs::path dir = test::fresh_temp_dir("gi-evolve-cli-compile-only");
    const ToolRun run = run_tool("evolve " + kernel_options() + " --evaluator compile-only --arch sm_90 --generations 1 "
                                 "--population 3 --seed 4 --no-pre-tune --no-post-tune --out " + dir.string());
    ASSERT_EQ(run.status, 0) << run.output;
    EXPECT_NE(run.output.find("compiled:"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("gives no timings"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("(none: the original kernel)"), std::string::npos) << run.output;
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gi
