// evolve()'s time accounting (run/run_budget.hpp): a phase's seconds run from its mark to its
// charge, a resumed run's clock continues from the sessions before it, and an overrun is said once.
#include "run/run_budget.hpp"

#include <gtest/gtest.h>

namespace gi {
namespace {

TEST(RunBudget, ChargesEachPhaseTheTimeSinceItsMarkOnTheRunsClock) {
    double now = 4;
    std::vector<std::string> lines;
    RunBudget budget([&now] { return now; }, [&lines](const std::string& line) { lines.push_back(line); });
    TimeBudget plan;
    plan.limit_s = 100;
    budget.begin(plan, 30);  // a resumed run: earlier sessions took 30 s
    EXPECT_DOUBLE_EQ(budget.elapsed(), 34);

    double search = 0, confirm = 0;
    now = 10;
    budget.charge(search);  // from begin(), which marks
    now = 12;
    budget.charge(search);
    EXPECT_DOUBLE_EQ(search, 8);
    now = 15;
    budget.charge(confirm);  // a charge marks too: confirming starts where the search ended
    EXPECT_DOUBLE_EQ(confirm, 3);
    now = 20;
    budget.mark();
    now = 21;
    budget.charge(confirm);
    EXPECT_DOUBLE_EQ(confirm, 4);

    // Deadlines are on the run's clock, from the second the phase asks for one.
    const Deadline deadline = budget.deadline(RunPhase::Search);
    EXPECT_DOUBLE_EQ(deadline.at(), plan.deadline(RunPhase::Search, 51));
    EXPECT_FALSE(deadline.passed());
    now = deadline.at() - 30 + 0.5;  // elapsed: half a second past it, within the second allowed
    EXPECT_EQ(budget.overran(RunPhase::Search, deadline, "x"), "");
    now = deadline.at() - 30 + 5;
    EXPECT_TRUE(deadline.passed());
    const std::string over = budget.overran(RunPhase::Search, deadline, "its last generation took 9 s");
    EXPECT_EQ(over, plan.overrun(RunPhase::Search, deadline.at(), deadline.at() + 5, "its last generation took 9 s"));
    ASSERT_EQ(lines.size(), 1u);
    EXPECT_EQ(lines[0], "time limit: " + over);
}

TEST(RunBudget, WithoutAClockItCountsFromItsStartAndWithoutALimitNeverStops) {
    RunBudget budget({}, {});
    budget.begin(TimeBudget{}, 0);
    EXPECT_GE(budget.clock(), 0);
    EXPECT_LT(budget.clock(), 60);
    EXPECT_FALSE(budget.deadline(RunPhase::FinalCheck).set());
    EXPECT_EQ(budget.overran(RunPhase::FinalCheck, budget.deadline(RunPhase::FinalCheck), "x"), "");
}

}  // namespace
}  // namespace gi
