// Which rules a configuration keeps (grammar/liveness.hpp).
#include <gtest/gtest.h>

#include "../genome/hand_grammar.hpp"
#include "grammar/liveness.hpp"

namespace gi {
namespace {

TEST(RuleLiveness, ConditionsThatCannotBeEvaluatedCountAsLive) {
    testing::GrammarBuilder b;
    b.condition("1 / 0").condition("defined(A) && B > 1");
    b.rule(RuleKind::Statement, "x = 1;", {{}, {}, {}, 0, false, false, {0}});
    b.rule(RuleKind::Statement, "y = 1;", {{}, {}, {}, 0, false, false, {1}});
    const Grammar g = b.build();
    EXPECT_TRUE(rule_is_live(g.rules[0], g, {}));
    EXPECT_FALSE(rule_is_live(g.rules[1], g, {}));
    EXPECT_TRUE(rule_is_live(g.rules[1], g, {{"A", ""}, {"B", "2"}}));
}

}  // namespace
}  // namespace gi
