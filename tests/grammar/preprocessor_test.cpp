#include "grammar/preprocessor.hpp"

#include <gtest/gtest.h>

namespace gi {
namespace {

std::optional<long long> eval(const std::string& expression, const MacroTable& macros = {}) {
    return evaluate_condition(expression, macros);
}

TEST(Preprocessor, ArithmeticAndPrecedence) {
    EXPECT_EQ(eval("1 + 2 * 3"), 7);
    EXPECT_EQ(eval("(1 + 2) * 3"), 9);
    EXPECT_EQ(eval("10 - 4 - 3"), 3) << "left associative";
    EXPECT_EQ(eval("7 / 2 % 3"), 0);
    EXPECT_EQ(eval("1 << 4 >> 2"), 4);
    EXPECT_EQ(eval("-3 + +2"), -1);
    EXPECT_EQ(eval("~0"), -1);
    EXPECT_EQ(eval("!0 && !!5"), 1);
    EXPECT_EQ(eval("0 || 0"), 0);
    EXPECT_EQ(eval("6 & 3 | 8 ^ 1"), 11);
    EXPECT_EQ(eval("2 < 3 == 1"), 1);
    EXPECT_EQ(eval("3 >= 3 && 2 <= 1"), 0);
    EXPECT_EQ(eval("1 != 2"), 1);
    EXPECT_EQ(eval("0 ? 5 : 1 ? 6 : 7"), 6);
    EXPECT_EQ(eval("0x10 + 010 + 0b11 + 5u + 7UL"), 16 + 8 + 3 + 5 + 7);
}

TEST(Preprocessor, MacrosExpandRecursivelyAndUnknownNamesAreZero) {
    const MacroTable macros = {{"BLOCK_W", "64"}, {"TILE", "(BLOCK_W - 2 * R)"}, {"R", "5"}, {"EMPTY", ""}};
    EXPECT_EQ(eval("BLOCK_W", macros), 64);
    EXPECT_EQ(eval("TILE > 50", macros), 1);
    EXPECT_EQ(eval("UNKNOWN", macros), 0);
    EXPECT_EQ(eval("UNKNOWN == 0", macros), 1);
    EXPECT_EQ(eval("true && !false"), 1);
}

TEST(Preprocessor, Defined) {
    const MacroTable macros = {{"A", ""}, {"B", "0"}};
    EXPECT_EQ(eval("defined(A)", macros), 1);
    EXPECT_EQ(eval("defined B", macros), 1);
    EXPECT_EQ(eval("defined(C)", macros), 0);
    EXPECT_EQ(eval("!defined(C) && defined A", macros), 1);
    EXPECT_EQ(eval("!(defined(A)) && (B)", macros), 0);
}

TEST(Preprocessor, UnevaluableExpressionsGiveNullopt) {
    const MacroTable macros = {{"SELF", "SELF + 1"}, {"LOOP_A", "LOOP_B"}, {"LOOP_B", "LOOP_A"}, {"EMPTY", ""}};
    for (const char* bad : {"", "1 +", "(1", "1)", "F(3)", "1 / 0", "1 % 0", "1.5 > 1", "\"s\"", "1 ? 2", "defined",
                            "defined(", "1 << 64", "SELF", "LOOP_A", "EMPTY", "'a'", "2 3"})
        EXPECT_EQ(eval(bad, macros), std::nullopt) << bad;
}

TEST(Preprocessor, DeepNestingIsRefusedNotACrash) {
    const std::string deep = std::string(100000, '(') + "1" + std::string(100000, ')');
    EXPECT_EQ(eval(deep), std::nullopt);
    const std::string nots(100000, '!');
    EXPECT_EQ(eval(nots + "0"), std::nullopt);
    std::string ternary;
    for (int i = 0; i < 5000; ++i) ternary += "1 ? ";
    EXPECT_EQ(eval(ternary + "1"), std::nullopt);
}

// Launch geometry reads the file's #define constants (issue 40): those that are integers, or
// integer expressions of other such constants, with their values; nothing #if would read as 0.
TEST(Preprocessor, IntegerMacrosAreTheConstantsWithTheirValues) {
    const MacroTable macros{{"BLOCK_SIZE", "256"},
                            {"HALF", "(BLOCK_SIZE / 2)"},
                            {"TILES", "HALF * 4 + 1u"},
                            {"WIDTH", "0x40"},
                            {"SCALE", "1.5f"},
                            {"EMPTY", ""},
                            {"NO_NAME", "(UNDEFINED_THING + 1)"},
                            {"CAST", "((int)64)"},
                            {"CALL", "max(1, 2)"},
                            {"ON_EMPTY", "EMPTY + 1"},
                            {"LOOP_A", "LOOP_B + 1"},
                            {"LOOP_B", "LOOP_A + 1"},
                            {"ASKS", "defined(WIDTH)"},
                            {"NAME", "float"}};
    const std::map<std::string, long long> expected{{"BLOCK_SIZE", 256}, {"HALF", 128}, {"TILES", 513}, {"WIDTH", 64}};
    EXPECT_EQ(integer_macros(macros), expected);
}

}  // namespace
}  // namespace gi
