// Issue 44: the gate checks every generation's would-be parents on one case, so the sanitizer
// sessions keep it open instead of loading the generation's case (hundreds of MB) for each check.
#include <gtest/gtest.h>

#include "cuda/gate_case.hpp"

namespace gi {
namespace {

CaseSlot gate_test_slot(std::uint64_t bytes, const std::string& kernel = "k", bool gate = false) {
    CaseSlot slot;
    slot.bytes = bytes;
    slot.kernel = kernel;
    slot.gate = gate;
    return slot;
}

TEST(GateCase, EveryGenerationIsGatedOnTheSmallestTrainingCase) {
    const std::vector<CaseSlot> slots{gate_test_slot(400), gate_test_slot(300), gate_test_slot(500),
                                      gate_test_slot(100) /* held out */};
    for (int generation_case : {0, 1, 2}) EXPECT_EQ(choose_gate_case(slots, 3, generation_case), 1) << generation_case;
}

TEST(GateCase, EqualCasesGiveTheFirstOfThem) {
    const std::vector<CaseSlot> slots{gate_test_slot(300), gate_test_slot(300), gate_test_slot(300)};
    for (int generation_case : {0, 1, 2}) EXPECT_EQ(choose_gate_case(slots, 3, generation_case), 0);
}

TEST(GateCase, ATemplatesInstantiationsAreGatedOnTheirOwnCases) {
    const std::vector<CaseSlot> slots{gate_test_slot(100, "k<16>"), gate_test_slot(900, "k<32>"),
                                      gate_test_slot(50, "k<16>"), gate_test_slot(700, "k<32>")};
    EXPECT_EQ(choose_gate_case(slots, 4, 0), 2);
    EXPECT_EQ(choose_gate_case(slots, 4, 1), 3);
    EXPECT_EQ(choose_gate_case(slots, 4, 3), 3);
}

TEST(GateCase, RecordedGateCasesAreUsedInTurn) {
    const std::vector<CaseSlot> slots{gate_test_slot(400), gate_test_slot(300), gate_test_slot(1, "k", true),
                                      gate_test_slot(2, "k", true)};
    EXPECT_EQ(choose_gate_case(slots, 2, 0), 2);
    EXPECT_EQ(choose_gate_case(slots, 2, 1), 3);
    EXPECT_EQ(choose_gate_case(slots, 2, 2), 2);
}

TEST(GateCase, ACaseOutsideTrainingIsTakenAsTheFirst) {
    const std::vector<CaseSlot> slots{gate_test_slot(400), gate_test_slot(300)};
    EXPECT_EQ(choose_gate_case(slots, 2, -1), 1);
    EXPECT_EQ(choose_gate_case(slots, 2, 9), 1);
    EXPECT_EQ(choose_gate_case({}, 0, 3), 3);
}

}  // namespace
}  // namespace gi
