// Launch expressions from a damaged registration (issue 39, class 13): the parser recursed once a
// nesting level, so 20,000 '(' overflowed the stack (SIGSEGV). Nesting and the tree's depth are
// bounded now, with an error naming where.
#include "launch/expression.hpp"

#include <gtest/gtest.h>

#include <string>

#include "util/error.hpp"

namespace gi {
namespace {

std::string bounds_error(const std::string& text) {
    try {
        Expression::parse(text, "--grid");
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(accepted)";
}

std::string nested_parentheses(std::size_t depth) { return std::string(depth, '(') + "n" + std::string(depth, ')'); }

TEST(ExpressionBounds, TwentyThousandNestedParenthesesAreRefusedNamingThePosition) {
    const std::string message = bounds_error(nested_parentheses(20000));
    EXPECT_NE(message.find("nested more than 256 levels deep"), std::string::npos) << message.substr(0, 400);
    EXPECT_NE(message.find("at position 257"), std::string::npos) << message.substr(0, 400);
    EXPECT_LT(message.size(), 1000u) << "the text is quoted in part, not 40,000 characters";
    for (std::size_t depth : {1000u, 60000u}) EXPECT_NE(bounds_error(nested_parentheses(depth)), "(accepted)");
}

TEST(ExpressionBounds, SignsAndCallsCountAsNestingToo) {
    EXPECT_NE(bounds_error(std::string(5000, '-') + "1").find("nested more than"), std::string::npos);
    std::string calls;
    for (int i = 0; i < 3000; ++i) calls += "ceil(";
    calls += "n" + std::string(3000, ')');
    EXPECT_NE(bounds_error(calls).find("nested more than"), std::string::npos);
}

TEST(ExpressionBounds, TheDeepestAllowedNestingStillEvaluates) {
    const Expression e = Expression::parse(nested_parentheses(255), "--grid");
    EXPECT_EQ(e.evaluate({{"n", 7}}), 7);
    EXPECT_EQ(Expression::parse(std::string(255, '-') + "1", "--grid").evaluate({}), -1);
}

TEST(ExpressionBounds, ALongChainIsRefusedWhereItGetsTooDeep) {
    // Evaluating recurses once a level of the tree, and "1+1+...+1" is as deep as it is long.
    std::string chain = "1";
    for (int i = 0; i < 100000; ++i) chain += "+1";
    const std::string message = bounds_error(chain);
    EXPECT_NE(message.find("more than 1024 operators deep"), std::string::npos) << message.substr(0, 400);
    EXPECT_NE(message.find("at position 2048"), std::string::npos) << message.substr(0, 400);
    // A chain of 1000 still evaluates.
    chain.resize(2001);
    EXPECT_EQ(Expression::parse(chain, "--grid").evaluate({}), 1001);
}

}  // namespace
}  // namespace gi
