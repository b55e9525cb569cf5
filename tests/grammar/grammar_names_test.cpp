#include "grammar/grammar.hpp"

#include <gtest/gtest.h>

namespace gi {
namespace {

TEST(GrammarNames, KindPrefixes) {
    EXPECT_EQ(rule_kind_prefix(RuleKind::Statement), "_");
    EXPECT_EQ(rule_kind_prefix(RuleKind::IfCondition), "IF_");
    EXPECT_EQ(rule_kind_prefix(RuleKind::ForInit), "for1_");
    EXPECT_EQ(rule_kind_prefix(RuleKind::ForCond), "for2_");
    EXPECT_EQ(rule_kind_prefix(RuleKind::ForStep), "for3_");
    EXPECT_EQ(rule_kind_prefix(RuleKind::Pragma), "pragma_");
}

TEST(GrammarNames, RuleNameWrapsTheId) {
    Rule rule;
    rule.id = "IF_k.cu_245";
    EXPECT_EQ(rule_name(rule), "<IF_k.cu_245>");
}

TEST(GrammarNames, PragmaConstantsRoundTrip) {
    EXPECT_EQ(pragma_constant_id(0), "pragma_K0");
    EXPECT_EQ(pragma_constant_text(0), "#pragma unroll");
    EXPECT_EQ(pragma_constant_text(4), "#pragma unroll 4");
    for (int k = 0; k <= kMaxPragmaUnroll; ++k) {
        EXPECT_EQ(parse_pragma_constant_id(pragma_constant_id(k)), k);
        EXPECT_EQ(parse_pragma_constant_id("<" + pragma_constant_id(k) + ">"), k);
    }
}

TEST(GrammarNames, PragmaConstantParserRejectsOtherSpellings) {
    for (const char* bad : {"pragma_K17", "pragma_K-1", "pragma_K", "pragma_K04", "pragma_Kx", "pragma_k.cu_12",
                            "K3", "", "<pragma_K3", "pragma_K3 ", "pragma_K100"})
        EXPECT_EQ(parse_pragma_constant_id(bad), std::nullopt) << bad;
}

TEST(GrammarNames, FindRulesAndGenesByIdOrName) {
    Grammar grammar;
    grammar.rules.resize(2);
    grammar.rules[0].id = "_k.cu_3";
    grammar.rules[1].id = "IF_k.cu_4";
    grammar.genes.resize(1);
    grammar.genes[0].name = "BLOCK_W";
    EXPECT_EQ(grammar.rule_index("IF_k.cu_4"), 1);
    EXPECT_EQ(grammar.rule_index("<IF_k.cu_4>"), 1);
    EXPECT_EQ(grammar.rule_index("<_k.cu_99>"), -1);
    EXPECT_EQ(grammar.find_rule("_k.cu_3"), &grammar.rules[0]);
    EXPECT_EQ(grammar.find_rule("k.cu_3"), nullptr);
    EXPECT_EQ(grammar.gene_index("BLOCK_W"), 0);
    EXPECT_EQ(grammar.find_gene("BLOCK_W"), &grammar.genes[0]);
    EXPECT_EQ(grammar.find_gene("block_w"), nullptr);
    EXPECT_EQ(grammar.gene_index("ROWS"), -1);
}

}  // namespace
}  // namespace gi
