#include "search/initial_population.hpp"

#include <gtest/gtest.h>

#include <set>

#include "genome/genome_ops.hpp"
#include "../support/search_test_support.hpp"
#include "util/error.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

using testing::make_gene;
using testing::make_rule;

// ROWS has 47 other values, so the first mutants are nearly all gene changes.
Grammar many_values_grammar() {
    std::vector<std::string> rows;
    for (int i = 1; i <= 48; ++i) rows.push_back(std::to_string(i));
    std::vector<Rule> rules;
    for (int line = 10; line < 20; ++line)
        rules.push_back(make_rule("_k.cu_" + std::to_string(line), RuleKind::Statement, "s" + std::to_string(line) + ";", line));
    return testing::grammar_of({make_gene("ROWS", GeneKind::Param, rows, "40", true)}, rules);
}

TEST(InitialPopulation, MembersAreUniqueSingleMutantsOfTheBase) {
    const Grammar grammar = testing::small_grammar();
    const Genome base = parse_genome("BLOCK=128");
    Rng rng(1);
    const std::vector<Genome> population = unique_mutants(base, 30, grammar, grammar_edit_drawer(grammar), rng);
    ASSERT_EQ(population.size(), 30u);
    std::set<std::string> texts;
    for (const Genome& g : population) {
        EXPECT_TRUE(texts.insert(genome_to_text(g)).second) << "duplicate " << genome_to_text(g);
        EXPECT_NE(genome_to_text(g), "BLOCK=128");
    }
}

TEST(InitialPopulation, GeneChangesAreAThousandTimesMoreLikelyThanARule) {
    const Grammar grammar = many_values_grammar();
    Rng rng(2);
    int gene_mutants = 0;
    const EditDrawer draw = grammar_edit_drawer(grammar);
    for (int i = 0; i < 400; ++i) {
        const Genome mutant = random_mutant(Genome{}, grammar, draw, rng);
        EXPECT_EQ(genome_item_count(mutant), 1u);
        gene_mutants += mutant.edits.empty();
    }
    // 1 gene x 1000 against 10 live rules: 99% gene changes.
    EXPECT_GE(gene_mutants, 390);
    EXPECT_LT(gene_mutants, 400);
}

TEST(InitialPopulation, RulesInCodeThePreprocessorRemovesAreNeverEdited) {
    // _k.cu_11 and _k.cu_12 sit in "#if FAST", which is off unless the genome turns FAST on.
    std::vector<Rule> rules{make_rule("_k.cu_10", RuleKind::Statement, "a;", 10),
                            make_rule("_k.cu_11", RuleKind::Statement, "b;", 11),
                            make_rule("_k.cu_12", RuleKind::Statement, "c;", 12),
                            make_rule("_k.cu_13", RuleKind::Statement, "d;", 13)};
    rules[1].conditions = {0};
    rules[2].conditions = {0};
    Grammar grammar = testing::grammar_of({}, rules);
    grammar.conditions.push_back({"FAST", 11});
    Rng rng(3);
    const EditDrawer draw = grammar_edit_drawer(grammar);
    EXPECT_EQ(live_rule_count(grammar, Genome{}), 2u);
    for (int i = 0; i < 300; ++i) {
        const Genome mutant = random_mutant(Genome{}, grammar, draw, rng);
        for (const Edit& edit : mutant.edits) {
            EXPECT_NE(edit.target, "_k.cu_11");
            EXPECT_NE(edit.target, "_k.cu_12");
            EXPECT_NE(edit.source, "_k.cu_11");
            EXPECT_NE(edit.source, "_k.cu_12");
        }
    }
    grammar.file_macros["FAST"] = "1";
    EXPECT_EQ(live_rule_count(grammar, Genome{}), 4u);
}

TEST(InitialPopulation, WhenSingleMutantsRunOutCodeEditsAreAdded) {
    // One gene with one other value and three statements: far fewer single mutants than 40.
    const Grammar grammar = testing::grammar_of(
        {make_gene("FAST", GeneKind::Guard, {"0", "1"}, "0", true)},
        {make_rule("_k.cu_3", RuleKind::Statement, "a;", 3), make_rule("_k.cu_4", RuleKind::Statement, "b;", 4),
         make_rule("_k.cu_5", RuleKind::Statement, "c;", 5)});
    Rng rng(4);
    const std::vector<Genome> population = unique_mutants(Genome{}, 40, grammar, grammar_edit_drawer(grammar), rng);
    std::set<std::string> texts;
    std::size_t longest = 0;
    for (const Genome& g : population) {
        texts.insert(genome_to_text(g));
        longest = std::max(longest, genome_item_count(g));
    }
    EXPECT_EQ(texts.size(), 40u);
    EXPECT_GE(longest, 2u);
    EXPECT_EQ(population.front(), parse_genome("FAST=1"));  // the gene is drawn first almost surely
}

TEST(InitialPopulation, AvoidsGivenGenomes) {
    const Grammar grammar = many_values_grammar();
    std::set<std::string> avoid;
    for (int i = 1; i <= 48; ++i)
        if (i != 40 && i != 7) avoid.insert("ROWS=" + std::to_string(i));
    Rng rng(5);
    const std::vector<Genome> mutants = unique_mutants(Genome{}, 1, grammar, grammar_edit_drawer(grammar), rng, avoid);
    EXPECT_EQ(genome_to_text(mutants.at(0)), "ROWS=7");
}

TEST(InitialPopulation, TooSmallAKernelForThePopulationIsAClearError) {
    const Grammar grammar = testing::grammar_of({make_gene("FAST", GeneKind::Guard, {"0", "1"}, "0", true)}, {});
    Rng rng(6);
    try {
        unique_mutants(Genome{}, 5, grammar, grammar_edit_drawer(grammar), rng);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--population"), std::string::npos) << e.what();
    }
    const Grammar empty = testing::grammar_of({}, {});
    EXPECT_THROW(random_mutant(Genome{}, empty, grammar_edit_drawer(empty), rng), Error);
}

TEST(InitialPopulation, SameSeedSamePopulation) {
    const Grammar grammar = testing::small_grammar();
    Rng a(7), b(7), c(8);
    const EditDrawer draw = grammar_edit_drawer(grammar);
    const auto first = unique_mutants(Genome{}, 20, grammar, draw, a);
    EXPECT_EQ(first, unique_mutants(Genome{}, 20, grammar, draw, b));
    EXPECT_NE(first, unique_mutants(Genome{}, 20, grammar, draw, c));
}

}  // namespace
}  // namespace gi
