// The oracle gate's rules (cuda/oracle_gate.hpp) on their own, with scripted replays: what is
// replayed in which order, what stops the run and what the notes say. The fake-worker tests
// (oracle_gate_test.cpp) check the same gate through the whole evaluator.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/oracle_gate.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

CaseSlot slot(const std::string& name, bool changed, bool held_out = false) {
    CaseSlot s;
    s.path = "/cases/" + name;
    s.held_out = held_out;
    CaseBuffer out;
    out.changed = changed;
    s.manifest.buffers.push_back(out);
    return s;
}

// Replays that answer from a script and write down what was asked, in order.
struct ScriptedReplays : OracleReplays {
    std::vector<CaseSlot>& slots;
    std::map<int, RunVerdict> reruns;  // by case; Ok and unmoved when not given
    std::map<int, std::uint64_t> first_mismatches;
    std::vector<std::string> calls;
    explicit ScriptedReplays(std::vector<CaseSlot>& s) : slots(s) {}
    void first_replay(int index) override {
        calls.push_back("first " + std::to_string(index));
        slots[index].oracle_elements = 100;
        slots[index].oracle_mismatches = first_mismatches[index];
        slots[index].oracle_detail = "out[3]: 1 against 2";
    }
    RunVerdict rerun(int index) override {
        calls.push_back("rerun " + std::to_string(index));
        return reruns[index];
    }
    void case_passed(int index) override { calls.push_back("passed " + std::to_string(index)); }
};

std::string error_of(const std::vector<CaseSlot>& slots, ScriptedReplays& replays, bool nondeterministic) {
    std::ostringstream notes;
    try {
        run_oracle_gate(slots, replays, nondeterministic, notes);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(OracleGateRules, EachCaseIsReplayedThenRerunThenPassedInOrder) {
    std::vector<CaseSlot> slots{slot("a", true), slot("b", false, true)};
    ScriptedReplays replays(slots);
    std::ostringstream notes;
    run_oracle_gate(slots, replays, false, notes);
    EXPECT_EQ(replays.calls, (std::vector<std::string>{"first 0", "rerun 0", "passed 0", "first 1", "rerun 1", "passed 1"}));
    EXPECT_NE(notes.str().find("reproduces its recorded outputs on all 2 cases (1 kept for validation)"), std::string::npos)
        << notes.str();
    EXPECT_NE(notes.str().find("the launch changed nothing in 1 of 2 cases (b)"), std::string::npos) << notes.str();
}

TEST(OracleGateRules, DeclaredNondeterminismIsRerunSeveralTimesAndItsSpreadReported) {
    std::vector<CaseSlot> slots{slot("a", true)};
    ScriptedReplays replays(slots);
    replays.reruns[0].worst_error = 0.25;
    std::ostringstream notes;
    run_oracle_gate(slots, replays, true, notes);
    EXPECT_EQ(std::count(replays.calls.begin(), replays.calls.end(), "rerun 0"), kNondeterministicReplays);
    EXPECT_NE(notes.str().find("moved by up to 0.25, within the tolerance"), std::string::npos) << notes.str();
}

TEST(OracleGateRules, AFirstReplayThatDoesNotReproduceStopsBeforeItsRerun) {
    std::vector<CaseSlot> slots{slot("a", true), slot("b", true)};
    ScriptedReplays replays(slots);
    replays.first_mismatches[1] = 7;
    const std::string error = error_of(slots, replays, false);
    EXPECT_NE(error.find("/cases/b: the original kernel, replayed on this GPU, does not reproduce"), std::string::npos) << error;
    EXPECT_NE(error.find("7 of 100 elements"), std::string::npos) << error;
    EXPECT_EQ(replays.calls.back(), "first 1");  // no rerun, and not passed
}

TEST(OracleGateRules, AnUndeclaredMoveOrACrashingRerunStopsTheRun) {
    std::vector<CaseSlot> slots{slot("a", true)};
    ScriptedReplays moved(slots);
    moved.reruns[0].worst_error = 1e-7;
    EXPECT_NE(error_of(slots, moved, false).find("change from one run to the next on the same inputs (largest change 1e-07)"),
              std::string::npos);
    ScriptedReplays crashed(slots);
    crashed.reruns[0].result.status = EvalStatus::Crash;
    crashed.reruns[0].result.detail = "illegal address";
    EXPECT_NE(error_of(slots, crashed, false).find("replayed a second time, crash: illegal address"), std::string::npos)
        << error_of(slots, crashed, false);
    ScriptedReplays beyond(slots);
    beyond.reruns[0].mismatches = 3;
    beyond.reruns[0].result.detail = "out[0] beyond";
    EXPECT_NE(error_of(slots, beyond, true).find("(declared nondeterministic) varies beyond the tolerance"), std::string::npos);
}

TEST(OracleGateRules, CasesWhoseLaunchesAllChangedNothingAreRefused) {
    std::vector<CaseSlot> slots{slot("a", false), slot("b", false)};
    ScriptedReplays replays(slots);
    EXPECT_NE(error_of(slots, replays, false).find("in every recorded case the launch changed nothing"), std::string::npos);
}

// Issue 41: cases whose launch changed nothing (a timing loop's repeated launch) pass when their
// written elements are poisoned, and the note says what is poisoned where; a case that poisons
// nothing is named as one where a variant that does nothing passes.
TEST(OracleGateRules, UnchangedCasesWithPoisonedOutputsPassAndTheNoteSaysWhatIsPoisoned) {
    std::vector<CaseSlot> slots{slot("a", false), slot("b", false), slot("c", false)};
    for (CaseSlot& s : slots) {
        s.manifest.buffers[0].size = 4096;
        s.manifest.buffers[0].element = ElementType::F32;
        s.manifest.buffers[0].read_only = false;
    }
    slots[0].poisonable = slots[1].poisonable = "w1024r0u0:0-4096";
    slots[2].poisonable = "w0r1024u0";
    ScriptedReplays replays(slots);
    std::ostringstream notes;
    run_oracle_gate(slots, replays, false, notes);
    const std::string text = notes.str();
    EXPECT_NE(text.find("the launch changed nothing in 3 of 3 cases (a, b, c)"), std::string::npos) << text;
    EXPECT_NE(text.find("so one that skips writing them is wrong there too: a, b (buffer 0: 1024 of 1024 elements poisoned)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("nothing could be poisoned in c (buffer 0: none of 1024 elements poisoned, 1024 read-modify-write)"),
              std::string::npos)
        << text;
    // Poisoning given up where the original did not reproduce from the poisoned images.
    slots[0].poisonable = "w1024r0u0f";
    std::ostringstream given_up;
    ScriptedReplays again(slots);
    run_oracle_gate(slots, again, false, given_up);
    EXPECT_NE(given_up.str().find("those buffers are not poisoned (a variant that skips writing them is caught only where "
                                  "the launch changed them): a (buffer 0: none of 1024 elements poisoned (the original did "
                                  "not reproduce its outputs from the poisoned images))"),
              std::string::npos)
        << given_up.str();
    // Nothing poisoned anywhere: refused.
    for (CaseSlot& s : slots) s.poisonable = "w0r1024u0";
    ScriptedReplays blind(slots);
    EXPECT_NE(error_of(slots, blind, false).find("no output element could be poisoned (a, b, c (buffer 0: none of 1024"),
              std::string::npos)
        << error_of(slots, blind, false);
}

TEST(OracleGateRules, ModuleVariablesMustBeInEveryCaseExceptFilePrivateOnes) {
    std::vector<CaseSlot> slots{slot("a", true), slot("b", true)};
    CaseBuffer weights;
    weights.variable = "c_weights";
    slots[0].manifest.buffers.push_back(weights);
    const std::vector<ModuleVariable> variables{{"c_weights", true, 64}};
    std::ostringstream notes;
    try {
        check_module_variables(variables, slots, notes);
        FAIL() << "case b lacks c_weights";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/cases/b: this case does not hold the __constant__ variable 'c_weights'"),
                  std::string::npos)
            << e.what();
    }
    slots[1].manifest.buffers.push_back(weights);
    const std::vector<ModuleVariable> with_private{{"c_weights", true, 64},
                                                   {"_ZN33_INTERNAL_a10fdbdb_5_k2_cu__Z1kPf2ns7nsconstE", true, 4}};
    check_module_variables(with_private, slots, notes);
    EXPECT_NE(notes.str().find("variables private to it"), std::string::npos) << notes.str();
}

}  // namespace
}  // namespace gi
