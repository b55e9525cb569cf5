// `gi-tool history` end to end: the binary on a database made here.
#include <gtest/gtest.h>

#include "history/history.hpp"
#include "history_test_util.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

using test::ToolRun;

ToolRun history_tool(const std::string& arguments) { return test::run_gi_tool("history " + arguments); }

std::filesystem::path sample_run() {
    const auto dir = test::scratch_dir("cmd");
    auto history = History::create(dir / kHistoryFileName, test::test_identity());
    IndividualRow root;
    root.genome = "";
    root.birth = Birth::Init;
    root.strategy = "anneal";
    root.time = test::timing(1.0);
    root.original = test::timing(1.0);
    const auto a = history->add_individual(root);
    IndividualRow child = root;
    child.genome = "<_k.cu_3>";
    child.birth = Birth::Mutation;
    child.parents = {a};
    child.generation = 1;
    child.time = test::timing(0.5);
    child.accepted = true;
    history->add_individual(child);
    IndividualRow broken = root;
    broken.genome = "<_k.cu_4>";
    broken.generation = 2;
    broken.status = EvalStatus::CompileError;
    broken.detail = "error: expected ';'";
    broken.time = Timing{};
    broken.strategy = "gp";
    history->add_individual(broken);
    return dir;
}

TEST(CmdHistory, ListsFiltersAndTracesARun) {
    const auto dir = sample_run();
    ToolRun summary = history_tool("--out " + dir.string());
    EXPECT_EQ(summary.status, 0) << summary.output;
    EXPECT_NE(summary.output.find("3 individuals"), std::string::npos) << summary.output;

    ToolRun best = history_tool("--out " + dir.string() + " --best 1");
    EXPECT_EQ(best.status, 0);
    EXPECT_NE(best.output.find("2.000x"), std::string::npos) << best.output;
    EXPECT_NE(best.output.find("<_k.cu_3>"), std::string::npos) << best.output;

    ToolRun lineage = history_tool("--out " + dir.string() + " --lineage 2");
    EXPECT_EQ(lineage.status, 0);
    EXPECT_NE(lineage.output.find("#2 anneal gen 1 mutation of #1"), std::string::npos) << lineage.output;

    ToolRun failures = history_tool("--out " + (dir / kHistoryFileName).string() + " --failures");
    EXPECT_EQ(failures.status, 0);
    EXPECT_NE(failures.output.find("1 x compile-error: error: expected ';'"), std::string::npos) << failures.output;

    ToolRun anneal_only = history_tool("--out " + dir.string() + " --failures --strategy anneal");
    EXPECT_NE(anneal_only.output.find("0 of 2 individuals failed"), std::string::npos) << anneal_only.output;

    ToolRun curve = history_tool("--out " + dir.string() + " --curve");
    EXPECT_EQ(curve.status, 0);
    EXPECT_NE(curve.output.find("2 "), std::string::npos) << curve.output;
    EXPECT_NE(curve.output.find(" 2.0000\n"), std::string::npos) << curve.output;

    EXPECT_EQ(history_tool("--help").status, 0);
}

TEST(CmdHistory, BadUseIsAUsageErrorAndBadFilesAFailure) {
    const auto dir = sample_run();
    EXPECT_EQ(history_tool("").status, 2) << "--out is required";
    EXPECT_EQ(history_tool("--out " + dir.string() + " --best 0").status, 2);
    EXPECT_EQ(history_tool("--out " + dir.string() + " --best many").status, 2);
    EXPECT_EQ(history_tool("--out " + dir.string() + " --best 2 --failures").status, 2);
    EXPECT_EQ(history_tool("--out " + dir.string() + " --curve --failures").status, 2);
    EXPECT_EQ(history_tool("--out " + dir.string() + " --colour").status, 2);
    EXPECT_EQ(history_tool("--out " + dir.string() + " --lineage x").status, 2);
    ToolRun strategy = history_tool("--out " + dir.string() + " --strategy annealing");
    EXPECT_EQ(strategy.status, 2);
    EXPECT_NE(strategy.output.find("unknown strategy 'annealing' (known: anneal, gp, nsga2, pre-tune"), std::string::npos)
        << strategy.output;

    ToolRun missing_id = history_tool("--out " + dir.string() + " --lineage 42");
    EXPECT_EQ(missing_id.status, 1);
    EXPECT_NE(missing_id.output.find("no individual #42"), std::string::npos) << missing_id.output;

    ToolRun nothing = history_tool("--out " + (dir / "nowhere").string());
    EXPECT_EQ(nothing.status, 1);
    EXPECT_NE(nothing.output.find("no history database"), std::string::npos) << nothing.output;

    const auto foreign = dir / "notes.txt";
    std::ofstream(foreign) << "shopping list: milk, eggs, a faster kernel\n";
    const std::string before = test::file_bytes(foreign);
    ToolRun bad = history_tool("--out " + foreign.string());
    EXPECT_EQ(bad.status, 1);
    EXPECT_NE(bad.output.find("not a gi-optimize history database"), std::string::npos) << bad.output;
    EXPECT_EQ(test::file_bytes(foreign), before);
}

}  // namespace
}  // namespace gi
