#include "history/history_report.hpp"

#include <gtest/gtest.h>

#include "history_test_util.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

IndividualRow row(std::int64_t id, const std::string& genome, double mean, EvalStatus status = EvalStatus::Ok,
                  std::vector<std::int64_t> parents = {}, Birth birth = Birth::Mutation) {
    IndividualRow r;
    r.id = id;
    r.genome = genome;
    r.mean = mean;
    r.deviation = 0.01;
    r.status = status;
    r.parents = std::move(parents);
    r.birth = birth;
    r.strategy = "anneal";
    r.generation = static_cast<int>(id);
    r.time = test::timing(1.0 / (mean > 0 ? mean : 1));
    r.accepted = status == EvalStatus::Ok && mean > 1;
    return r;
}

std::vector<IndividualRow> family() {
    return {row(1, "", 1.0, EvalStatus::Ok, {}, Birth::Init),
            row(2, "A=1", 1.5, EvalStatus::Ok, {1}),
            row(3, "<_k.cu_4>", 1.2, EvalStatus::Ok, {1}),
            row(4, "A=1 <_k.cu_4>", 1.9, EvalStatus::Ok, {2, 3}, Birth::Crossover),
            row(5, "<_k.cu_9>", 0, EvalStatus::CompileError, {1}),
            row(6, "A=1 <_k.cu_4> <_k.cu_5>", 2.1, EvalStatus::Ok, {1, 3, 4}, Birth::Triangulation),
            row(7, "<_k.cu_8>", 0, EvalStatus::CompileError, {3}),
            row(8, "<_k.cu_7>", 0, EvalStatus::Timeout, {3})};
}

TEST(HistoryReport, BestIsByScoreOnlyAmongIndividualsThatRan) {
    const auto best = best_individuals(family(), 3);
    ASSERT_EQ(best.size(), 3u);
    EXPECT_EQ(best[0].id, 6);
    EXPECT_EQ(best[1].id, 4);
    EXPECT_EQ(best[2].id, 2);
    const std::string table = best_table(best);
    EXPECT_NE(table.find("2.100x+-0.010"), std::string::npos) << table;
    EXPECT_NE(table.find("triangulation"), std::string::npos) << table;
    EXPECT_EQ(best_table({}), "no individual ran successfully\n");
    // A genome measured again later is listed once, with its latest row.
    auto rows = family();
    rows.push_back(row(9, "A=1", 1.6));
    const auto again = best_individuals(rows, 10);
    int count = 0;
    for (const auto& r : again) count += r.genome == "A=1";
    EXPECT_EQ(count, 1);
}

TEST(HistoryReport, LineageShowsEveryAncestorOnce) {
    const std::string tree = lineage_tree(family(), 6);
    EXPECT_EQ(tree,
              "#6 anneal gen 6 triangulation of #1 #3 #4: 2.100x+-0.010 A=1 <_k.cu_4> <_k.cu_5>\n"
              "  #1 anneal gen 1 init: 1.000x+-0.010 (original)\n"
              "  #3 anneal gen 3 mutation of #1: 1.200x+-0.010 <_k.cu_4>\n"
              "    (#1 above)\n"
              "  #4 anneal gen 4 crossover of #2 #3: 1.900x+-0.010 A=1 <_k.cu_4>\n"
              "    #2 anneal gen 2 mutation of #1: 1.500x+-0.010 A=1\n"
              "      (#1 above)\n"
              "    (#3 above)\n");
    EXPECT_THROW(lineage_tree(family(), 99), Error);
}

TEST(HistoryReport, FailuresAreGroupedByCause) {
    auto rows = family();
    rows[4].detail = "kernel.cu(12): error: identifier \"x\" is undefined\nmore";
    rows[6].detail = "kernel.cu(12): error: identifier \"x\" is undefined";
    rows[7].detail = "killed after 40 ms";
    const std::string report = failure_report(rows);
    EXPECT_EQ(report,
              "3 of 8 individuals failed: compile-error 2 timeout 1\n"
              "  2 x compile-error: kernel.cu(12): error: identifier \"x\" is undefined  e.g. #5 #7\n"
              "  1 x timeout: killed after 40 ms  e.g. #8\n");
    EXPECT_EQ(failure_report({row(1, "", 1.0)}), "0 of 1 individuals failed\n");
}

TEST(HistoryReport, SummaryCountsStrategiesStatusesAndBirths) {
    HistoryIdentity identity = test::test_identity();
    const std::string summary = history_summary(identity, family(), 11, 2);
    EXPECT_NE(summary.find("8 individuals (8 distinct genomes, 4 accepted), 11 measurements"), std::string::npos)
        << summary;
    EXPECT_NE(summary.find("by status: compile-error 2 ok 5 timeout 1"), std::string::npos) << summary;
    EXPECT_NE(summary.find("by birth: crossover 1 init 1 mutation 5 triangulation 1"), std::string::npos) << summary;
    EXPECT_NE(summary.find("options: strategy=gp seed=1"), std::string::npos) << summary;
    EXPECT_NE(summary.find("best 2:"), std::string::npos) << summary;
}

TEST(HistoryReport, ProgressCurveIsTheRunningBestOfTheSearch) {
    auto rows = family();
    for (auto& r : rows) {
        r.original = test::timing(1.0);
        r.wall_s = static_cast<double>(r.id);
    }
    rows[3].accepted = false;  // 1.9x but not accepted: does not count
    IndividualRow tune = rows[5];
    tune.strategy = "post-tune";
    rows.push_back(tune);
    EXPECT_EQ(progress_curve(rows),
              "evaluated wall_s best_speedup\n"
              "1 1.000 0.0000\n"
              "2 2.000 1.5000\n"
              "3 3.000 1.5000\n"
              "4 4.000 1.5000\n"
              "5 5.000 1.5000\n"
              "6 6.000 2.1000\n"
              "7 7.000 2.1000\n"
              "8 8.000 2.1000\n");
}

}  // namespace
}  // namespace gi
