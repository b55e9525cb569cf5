#include <gtest/gtest.h>

#include "genome/validate.hpp"
#include "hand_grammar.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using testing::sample_kernel;

Rule make_rule(RuleKind kind, std::vector<std::string> uses, std::vector<std::string> in_scope, int loop_depth = 0) {
    Rule r;
    r.id = std::string(rule_kind_prefix(kind)) + "k.cu_1";
    r.kind = kind;
    r.uses = std::move(uses);
    r.in_scope = std::move(in_scope);
    r.loop_depth = loop_depth;
    return r;
}

std::vector<GenomeProblem> problems_of(const std::string& genome) {
    return validate_genome(parse_genome(genome), sample_kernel().build());
}

TEST(CopyIsScopeSafe, SameKindAndVisibleNames) {
    const Rule target = make_rule(RuleKind::Statement, {"a"}, {"a", "b"});
    EXPECT_TRUE(copy_is_scope_safe(target, make_rule(RuleKind::Statement, {"b"}, {"b"})));
    EXPECT_TRUE(copy_is_scope_safe(target, make_rule(RuleKind::Statement, {}, {})));
    EXPECT_FALSE(copy_is_scope_safe(target, make_rule(RuleKind::Statement, {"c"}, {"c"})));
    EXPECT_FALSE(copy_is_scope_safe(target, make_rule(RuleKind::IfCondition, {"a"}, {"a"})));
    EXPECT_FALSE(copy_is_scope_safe(make_rule(RuleKind::ForCond, {}, {}), make_rule(RuleKind::ForStep, {}, {})));
}

TEST(CopyIsScopeSafe, NamesTheSourceDeclaresNeedNotBeVisible) {
    Rule source = make_rule(RuleKind::ForInit, {"j"}, {});
    source.declares = {"j"};
    Rule target = make_rule(RuleKind::ForInit, {"j"}, {});
    target.declares = {"j"};
    EXPECT_TRUE(copy_is_scope_safe(target, source));
}

TEST(CopyIsScopeSafe, ForInitMustDeclareExactlyTheSameNames) {
    Rule target = make_rule(RuleKind::ForInit, {"j"}, {"n"});
    target.declares = {"j"};
    Rule other_name = make_rule(RuleKind::ForInit, {"k"}, {});
    other_name.declares = {"k"};
    Rule assigns_only = make_rule(RuleKind::ForInit, {"j"}, {});
    Rule two = make_rule(RuleKind::ForInit, {"j", "m"}, {});
    two.declares = {"j", "m"};
    Rule same = make_rule(RuleKind::ForInit, {"j", "n"}, {});
    same.declares = {"j"};
    EXPECT_FALSE(copy_is_scope_safe(target, other_name));
    EXPECT_FALSE(copy_is_scope_safe(target, assigns_only));
    EXPECT_FALSE(copy_is_scope_safe(target, two));
    EXPECT_TRUE(copy_is_scope_safe(target, same));
    // A loop whose init only assigns keeps taking inits that only assign.
    Rule assigning_target = make_rule(RuleKind::ForInit, {"j"}, {"j"});
    EXPECT_TRUE(copy_is_scope_safe(assigning_target, assigns_only));
    EXPECT_FALSE(copy_is_scope_safe(assigning_target, other_name));
}

TEST(CopyIsScopeSafe, BreakAndContinueOnlyInsideLoops) {
    Rule jump = make_rule(RuleKind::Statement, {}, {});
    jump.has_break_or_continue = true;
    EXPECT_FALSE(copy_is_scope_safe(make_rule(RuleKind::Statement, {}, {}, 0), jump));
    EXPECT_TRUE(copy_is_scope_safe(make_rule(RuleKind::Statement, {}, {}, 2), jump));
}

TEST(ValidateGenome, AcceptsLegalGenomes) {
    EXPECT_TRUE(problems_of("").empty());
    EXPECT_TRUE(problems_of("BLOCK_W=128 USE_SHARED=0 restrict=0 volatile=1 const_n=1 launch_bounds=3 "
                            "use_fast_math=1 dlcm=cg")
                    .empty());
    EXPECT_TRUE(problems_of("<_k.cu_6> <_k.cu_8><_k.cu_10> <_k.cu_10>+<_k.cu_9> <IF_k.cu_9><IF_k.cu_6> "
                            "<for2_k.cu_7><for2_k.cu_7> <pragma_k.cu_7><pragma_K0> <pragma_k.cu_7><pragma_K16> "
                            "<pragma_k.cu_7>")
                    .empty());
}

TEST(ValidateGenome, UnknownGenesAndValues) {
    auto p = problems_of("ROWS=4 BLOCK_W=48 launch_bounds=9");
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].item, "ROWS=4");
    EXPECT_NE(p[0].message.find("no gene ROWS"), std::string::npos);
    EXPECT_NE(p[0].message.find("BLOCK_W"), std::string::npos) << "lists the genes there are";
    EXPECT_EQ(p[1].item, "BLOCK_W=48");
    EXPECT_NE(p[1].message.find("allowed: 32, 64, 128"), std::string::npos);
    EXPECT_EQ(p[2].item, "launch_bounds=9");
}

TEST(ValidateGenome, DuplicateSettingIsAProblem) {
    auto p = problems_of("BLOCK_W=32 BLOCK_W=128");
    ASSERT_EQ(p.size(), 1u);
    EXPECT_EQ(p[0].item, "BLOCK_W=128");
    EXPECT_NE(p[0].message.find("more than once"), std::string::npos);
}

TEST(ValidateGenome, UnknownRules) {
    auto p = problems_of("<_k.cu_99> <_k.cu_6><_k.cu_98> <pragma_k.cu_7><pragma_k.cu_5>");
    ASSERT_EQ(p.size(), 3u);
    EXPECT_EQ(p[0].item, "<_k.cu_99>");
    EXPECT_NE(p[0].message.find("no rule <_k.cu_99>"), std::string::npos);
    EXPECT_NE(p[1].message.find("no rule <_k.cu_98>"), std::string::npos);
    EXPECT_NE(p[2].message.find("pragma_K0"), std::string::npos) << p[2].message;
}

TEST(ValidateGenome, KindMismatchesAndWrongOperations) {
    auto p = problems_of("<_k.cu_6><IF_k.cu_6> <IF_k.cu_6> <for1_k.cu_7>+<for1_k.cu_7> <pragma_k.cu_7>+<_k.cu_8> "
                         "<for2_k.cu_7><for3_k.cu_7>");
    ASSERT_EQ(p.size(), 5u);
    EXPECT_NE(p[0].message.find("if condition"), std::string::npos) << p[0].message;
    EXPECT_NE(p[1].message.find("may only be replaced"), std::string::npos) << p[1].message;
    EXPECT_NE(p[2].message.find("may only be replaced"), std::string::npos) << p[2].message;
    EXPECT_NE(p[3].message.find("deleted or set"), std::string::npos) << p[3].message;
    EXPECT_NE(p[4].message.find("same kind"), std::string::npos) << p[4].message;
}

TEST(ValidateGenome, PragmaConstantsOnlyForPragmaSlots) {
    auto p = problems_of("<_k.cu_6><pragma_K4> <_k.cu_6>+<pragma_K4> <pragma_k.cu_7><pragma_K17>");
    ASSERT_EQ(p.size(), 3u);
    EXPECT_NE(p[0].message.find("can only replace an unroll pragma slot"), std::string::npos) << p[0].message;
    EXPECT_NE(p[1].message.find("can only replace an unroll pragma slot"), std::string::npos) << p[1].message;
    EXPECT_NE(p[2].item.find("pragma_K17"), std::string::npos);
}

TEST(ValidateGenome, ScopeViolations) {
    // Line 8 uses the loop variable j; line 6 and 13 stand outside the loop.
    auto p = problems_of("<_k.cu_6><_k.cu_8> <_k.cu_13>+<_k.cu_8> <_k.cu_13>+<_k.cu_9> <IF_k.cu_6><IF_k.cu_9>");
    ASSERT_EQ(p.size(), 4u);
    EXPECT_NE(p[0].message.find("uses j, not visible at line 6"), std::string::npos) << p[0].message;
    EXPECT_NE(p[1].message.find("uses j"), std::string::npos) << p[1].message;
    EXPECT_NE(p[2].message.find("break/continue"), std::string::npos) << p[2].message;
    EXPECT_NE(p[3].message.find("uses j"), std::string::npos) << p[3].message;
}

TEST(ValidateGenome, RequireValidListsEveryProblemWithContext) {
    const Grammar grammar = sample_kernel().build();
    EXPECT_NO_THROW(require_valid_genome(parse_genome("<_k.cu_6>"), grammar, "cache.xml"));
    try {
        require_valid_genome(parse_genome("ROWS=4 <_k.cu_99>"), grammar, "gi-cache/k.sm_90.xml");
        FAIL();
    } catch (const Error& e) {
        const std::string m = e.what();
        EXPECT_EQ(m.rfind("gi-cache/k.sm_90.xml: ", 0), 0u) << m;
        EXPECT_NE(m.find("2 problems"), std::string::npos) << m;
        EXPECT_NE(m.find("ROWS=4"), std::string::npos) << m;
        EXPECT_NE(m.find("<_k.cu_99>"), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace gi
