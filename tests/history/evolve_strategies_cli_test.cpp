// `gi-tool evolve --strategy nsga2|anneal` end to end with the fake evaluator, and what the run
// leaves for `gi-tool history`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "history/history.hpp"
#include "util/atomic_file.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

using test::ToolRun;


std::string kernel_options() {
    return std::string(GI_TEST_DATA_DIR) + "/search/small.cu --function scale --param BLOCK=32,64,128 --param ROWS=1..8";
}

TEST(EvolveStrategies, AnnealAndNsga2RunFromTheCommandLineAndFillTheHistory) {
    for (const std::string strategy : {"anneal", "nsga2"}) {
        const fs::path dir = test::fresh_temp_dir("gi-strategies-cli-" + strategy);
        const ToolRun run = test::run_gi_tool("evolve " + kernel_options() + " --evaluator fake --fake seed=3 --strategy " +
                                    strategy + " --workers 3 --generations 3 --population 8 --max-error 0.01 --quiet --out " +
                                    dir.string());
        ASSERT_EQ(run.status, 0) << strategy << "\n" << run.output;
        EXPECT_NE(run.output.find("pareto.xml history.sqlite"), std::string::npos) << run.output;
        EXPECT_TRUE(fs::exists(dir / "pareto.xml"));
        EXPECT_NE(read_text_file(dir / "run.xml").find("<pareto-front max-error=\"0.01\""), std::string::npos);
        auto history = History::read(dir / kHistoryFileName);
        IndividualFilter filter;
        filter.strategy = strategy;
        const auto rows = history->individuals(filter);
        EXPECT_GE(rows.size(), 24u) << strategy;
        const ToolRun lineage = test::run_gi_tool("history --out " + dir.string() + " --lineage " + std::to_string(rows.back().id));
        EXPECT_EQ(lineage.status, 0) << lineage.output;
        EXPECT_NE(lineage.output.find(" " + strategy + " gen "), std::string::npos) << lineage.output;
        const ToolRun best = test::run_gi_tool("history --out " + dir.string() + " --best 3 --strategy " + strategy);
        EXPECT_EQ(best.status, 0) << best.output;
        fs::remove_all(dir);
    }
}

TEST(EvolveStrategies, BadStrategyOptionsAreUsageErrors) {
    const fs::path dir = test::fresh_temp_dir("gi-strategies-cli-bad");
    const std::string base = "evolve " + kernel_options() + " --evaluator fake --out " + dir.string();
    const std::vector<std::pair<std::string, std::string>> cases{
        {base + " --strategy simulated-annealing", "unknown strategy 'simulated-annealing' (known: anneal, gp, nsga2)"},
        {base + " --strategy anneal --workers 0", "--workers must be between 1"},
        {base + " --strategy anneal --workers many", "--workers needs an integer"},
        {base + " --strategy anneal --anneal-batch 0", "--anneal-batch must be between 1"},
        {base + " --strategy nsga2 --max-error -0.1", "--max-error"},
    };
    for (const auto& [arguments, expected] : cases) {
        const ToolRun run = test::run_gi_tool(arguments);
        EXPECT_EQ(run.status, 2) << arguments << "\n" << run.output;
        EXPECT_NE(run.output.find(expected), std::string::npos) << arguments << "\n" << run.output;
    }
    EXPECT_FALSE(fs::exists(dir / kHistoryFileName)) << "nothing is written for a usage error";
    const ToolRun help = test::run_gi_tool("evolve --help");
    EXPECT_NE(help.output.find("--strategy gp|nsga2|anneal"), std::string::npos) << help.output;
    EXPECT_NE(help.output.find("--workers N"), std::string::npos);
    fs::remove_all(dir);
}

TEST(EvolveStrategies, AForeignFileWhereTheDatabaseGoesIsNeverTouched) {
    const fs::path dir = test::fresh_temp_dir("gi-strategies-cli-foreign");
    const std::string options = "evolve " + kernel_options() + " --evaluator fake --generations 1 --population 4 --quiet --out " +
                                dir.string();
    ASSERT_EQ(test::run_gi_tool(options).status, 0);
    write_file_atomically(dir / kHistoryFileName, "my notes, not a database\n");
    ToolRun resumed = test::run_gi_tool(options + " --resume");
    EXPECT_EQ(resumed.status, 1) << resumed.output;
    EXPECT_NE(resumed.output.find("not a gi-optimize history database"), std::string::npos) << resumed.output;
    ToolRun restarted = test::run_gi_tool(options + " --restart");
    EXPECT_EQ(restarted.status, 1) << restarted.output;
    EXPECT_EQ(read_text_file(dir / kHistoryFileName), "my notes, not a database\n");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gi
