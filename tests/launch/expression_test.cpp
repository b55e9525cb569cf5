#include "launch/expression.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

long long eval(const std::string& text, const NameValues& names = {}) {
    return Expression::parse(text, "grid expression").evaluate(names);
}

std::string parse_error(const std::string& text) {
    try {
        Expression::parse(text, "grid expression");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "";
}

std::string eval_error(const std::string& text, const NameValues& names = {}) {
    try {
        eval(text, names);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(LaunchExpression, Arithmetic) {
    EXPECT_EQ(eval("42"), 42);
    EXPECT_EQ(eval("2 + 3 * 4"), 14);
    EXPECT_EQ(eval("(2 + 3) * 4"), 20);
    EXPECT_EQ(eval("-3 + 10"), 7);
    EXPECT_EQ(eval("17 % 5"), 2);
    EXPECT_EQ(eval("12 / 4"), 3);
    EXPECT_EQ(eval("min(3, 9) + max(3, 9)"), 12);
}

TEST(LaunchExpression, ExactRationalRounding) {
    const NameValues n{{"width", 320}, {"BLOCK_W", 64}, {"height", 240}, {"ROWS", 7}};
    EXPECT_EQ(eval("ceil(width/BLOCK_W)", n), 5);
    EXPECT_EQ(eval("ceil(height/ROWS)", n), 35);     // 240/7 = 34.28...
    EXPECT_EQ(eval("floor(height/ROWS)", n), 34);
    EXPECT_EQ(eval("div_ceil(height, ROWS)", n), 35);
    EXPECT_EQ(eval("round_up(height, ROWS)", n), 245);
    EXPECT_EQ(eval("(height/ROWS)*ROWS", n), 240);   // exact: no 239.99999
    EXPECT_EQ(eval("ceil(-7/2)"), -3);
    EXPECT_EQ(eval("floor(-7/2)"), -4);
}

TEST(LaunchExpression, NamesAreListed) {
    EXPECT_EQ(Expression::parse("ceil(width/BLOCK_W) + width", "x").names(),
              (std::vector<std::string>{"BLOCK_W", "width"}));
}

TEST(LaunchExpression, SyntaxErrorsNameTextAndPosition) {
    std::string m = parse_error("BLOCK_W *");
    EXPECT_NE(m.find("grid expression 'BLOCK_W *' at position 10"), std::string::npos) << m;
    m = parse_error("ceil(width/BLOCK_W");
    EXPECT_NE(m.find("expected ')'"), std::string::npos) << m;
    m = parse_error("sqrt(4)");
    EXPECT_NE(m.find("unknown function 'sqrt'"), std::string::npos) << m;
    EXPECT_NE(m.find("position 1"), std::string::npos) << m;
    m = parse_error("min(1)");
    EXPECT_NE(m.find("takes 2 arguments"), std::string::npos) << m;
    m = parse_error("3 $ 4");
    EXPECT_NE(m.find("unexpected '$'"), std::string::npos) << m;
    m = parse_error("");
    EXPECT_NE(m.find("expression ends"), std::string::npos) << m;
    m = parse_error("99999999999999999999");
    EXPECT_NE(m.find("too large"), std::string::npos) << m;
}

TEST(LaunchExpression, EvaluationErrors) {
    std::string m = eval_error("ceil(width/BW)", {{"width", 3}});
    EXPECT_NE(m.find("unknown name 'BW' at position 12"), std::string::npos) << m;
    EXPECT_NE(m.find("known: width"), std::string::npos) << m;
    m = eval_error("width/0", {{"width", 3}});
    EXPECT_NE(m.find("division by zero"), std::string::npos) << m;
    m = eval_error("7/2");
    EXPECT_NE(m.find("not an integer"), std::string::npos) << m;
    m = eval_error("(7/2) % 2");
    EXPECT_NE(m.find("needs integers"), std::string::npos) << m;
    m = eval_error("div_ceil(3, 0)");
    EXPECT_NE(m.find("by zero"), std::string::npos) << m;
    m = eval_error("4611686018427387904 * 4");
    EXPECT_NE(m.find("overflows"), std::string::npos) << m;
}

TEST(LaunchExpression, DimsSplitAtTopLevelCommas) {
    auto dims = parse_dims("BLOCK_W, max(1, 4)", "--block-size");
    ASSERT_EQ(dims.size(), 2u);
    EXPECT_EQ(dims[1].evaluate({}), 4);
    EXPECT_THROW(parse_dims("1,2,3,4", "--grid"), UsageError);
    EXPECT_THROW(parse_dims("1,,3", "--grid"), UsageError);
    try {
        parse_dims("1,2*", "--grid");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--grid (y)"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gi
