// The sanitizer gate's line in the run notes says how its sessions came by their cases (issue 44:
// "cases opened ahead 0.0" could not tell a session that was never told a case from one whose
// guess was wrong).
#include <gtest/gtest.h>

#include "cuda/sanitizer_gate.hpp"

namespace gi {
namespace {

TEST(SanitizerGateNote, SaysHowManyCasesWereOpenedAheadAndAtACheck) {
    SanitizerGateStats stats;
    stats.checked = 10;
    stats.batches = 2;
    stats.sessions_started = 6;
    stats.sessions_with_case = 4;
    SessionTimes memcheck;
    memcheck.opened_ahead = 1.5;
    memcheck.ahead_used = 3;
    memcheck.ahead_missed = 1;
    memcheck.cases = 2.5;
    memcheck.case_opens = 2;
    stats.session_times["memcheck"] = memcheck;
    SessionTimes more;
    more.case_opens = 1;
    more.ahead_used = 1;
    stats.session_times["memcheck"] += more;
    const std::string line = stats.note(1);
    EXPECT_NE(line.find("6 long-lived compute-sanitizer processes"), std::string::npos) << line;
    EXPECT_NE(line.find("4 told a case to open ahead"), std::string::npos) << line;
    EXPECT_NE(line.find("cases opened ahead 1.5 (the session's own time; 4 used by the first check, 1 not)"), std::string::npos)
        << line;
    EXPECT_NE(line.find("cases 2.5 (3 opened at a check)"), std::string::npos) << line;
}

}  // namespace
}  // namespace gi
