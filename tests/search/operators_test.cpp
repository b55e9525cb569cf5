#include "search/operators.hpp"

#include <gtest/gtest.h>

#include <set>

#include "genome/genome_ops.hpp"
#include "../support/search_test_support.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

using testing::del;
using testing::ins;
using testing::rep;

// Hands out the edits of a script in turn (nullopt once it runs out) and counts the calls.
struct ScriptedDrawer {
    std::vector<Edit> script;
    std::size_t next = 0;
    EditDrawer drawer() {
        return [this](const Genome&, Rng&) -> std::optional<Edit> {
            if (next >= script.size()) return std::nullopt;
            return script[next++];
        };
    }
};

EditDrawer always(const Edit& edit) {
    return [edit](const Genome&, Rng&) -> std::optional<Edit> { return edit; };
}

EditDrawer never() {
    return [](const Genome&, Rng&) -> std::optional<Edit> { return std::nullopt; };
}

TEST(TwoPointSplice, KeepsTheOutsideOfTheFirstParentAndTheInsideOfTheSecond) {
    const std::vector<Edit> a{del("_k.cu_10"), del("_k.cu_11"), del("_k.cu_12"), del("_k.cu_13")};
    const std::vector<Edit> b{ins("_k.cu_14", "_k.cu_10"), rep("_k.cu_15", "_k.cu_11"), del("_k.cu_15")};
    EXPECT_EQ(two_point_splice(a, b, 1, 3, 0, 2),
              (std::vector<Edit>{del("_k.cu_10"), ins("_k.cu_14", "_k.cu_10"), rep("_k.cu_15", "_k.cu_11"),
                                 del("_k.cu_13")}));
    EXPECT_EQ(two_point_splice(a, b, 0, 4, 3, 3), std::vector<Edit>{});
    EXPECT_EQ(two_point_splice(a, b, 2, 2, 0, 0), a);
}

TEST(TwoPointSplice, RemovesDuplicateEditsKeepingTheFirst) {
    const std::vector<Edit> a{del("_k.cu_10"), del("_k.cu_11")};
    const std::vector<Edit> b{del("_k.cu_10"), del("_k.cu_12")};
    EXPECT_EQ(two_point_splice(a, b, 1, 1, 0, 2),
              (std::vector<Edit>{del("_k.cu_10"), del("_k.cu_12"), del("_k.cu_11")}));
}

TEST(TwoPointSplice, RejectsCutPointsOutOfOrder) {
    const std::vector<Edit> a{del("_k.cu_10")};
    EXPECT_THROW(two_point_splice(a, a, 1, 0, 0, 0), Error);
    EXPECT_THROW(two_point_splice(a, a, 0, 2, 0, 0), Error);
    EXPECT_THROW(two_point_splice(a, a, 0, 0, 0, 2), Error);
}

TEST(MutateGene, ChangesExactlyOneGeneToAnotherAllowedValue) {
    const Grammar grammar = testing::small_grammar();
    const Genome parent = parse_genome("BLOCK=128 <_k.cu_10>");
    Rng rng(5);
    std::set<std::string> seen;
    for (int i = 0; i < 300; ++i) {
        const Genome child = *mutate_gene(parent, grammar, rng);
        EXPECT_EQ(child.edits, parent.edits);
        int changed = 0;
        for (const Gene& gene : grammar.genes) {
            const std::string before = setting_or(parent, gene.name, gene.default_value);
            const std::string after = setting_or(child, gene.name, gene.default_value);
            if (before == after) continue;
            ++changed;
            EXPECT_NE(std::find(gene.values.begin(), gene.values.end(), after), gene.values.end());
        }
        EXPECT_EQ(changed, 1) << genome_to_text(child);
        seen.insert(genome_to_text(child));
    }
    // BLOCK has 2 other values, ROWS 3, FAST 1: all six children turn up. A child setting a gene
    // back to its default drops the setting rather than writing it.
    EXPECT_EQ(seen.size(), 6u);
    EXPECT_TRUE(seen.count("<_k.cu_10>"));  // BLOCK back to 64
    EXPECT_TRUE(seen.count("BLOCK=128 ROWS=1 <_k.cu_10>"));
}

TEST(MutateGene, NothingToChangeGivesNullopt) {
    const Grammar grammar = testing::grammar_of({testing::make_gene("ONE", GeneKind::Param, {"1"}, "1", true)}, {});
    Rng rng(1);
    EXPECT_FALSE(mutate_gene(Genome{}, grammar, rng).has_value());
    EXPECT_TRUE(mutable_genes(grammar).empty());
}

TEST(Mutate, HalfGeneChangesHalfAppendedCodeEdits) {
    const Grammar grammar = testing::small_grammar();
    const Genome parent = parse_genome("ROWS=2 <_k.cu_11>");
    const Edit appended = del("_k.cu_14");
    Rng rng(11);
    int gene_changes = 0, code_edits = 0;
    for (int i = 0; i < 2000; ++i) {
        const Genome child = mutate(parent, grammar, always(appended), rng);
        if (child.edits.size() == 2) {
            EXPECT_EQ(child.edits[0], parent.edits[0]);
            EXPECT_EQ(child.edits[1], appended);
            EXPECT_EQ(child.settings, parent.settings);
            ++code_edits;
        } else {
            EXPECT_EQ(child.edits, parent.edits);
            EXPECT_NE(child.settings, parent.settings);
            ++gene_changes;
        }
    }
    EXPECT_NEAR(gene_changes / 2000.0, 0.5, 0.05);
    EXPECT_NEAR(code_edits / 2000.0, 0.5, 0.05);
}

TEST(Mutate, FallsBackToTheKindThatIsPossible) {
    const Grammar grammar = testing::small_grammar();
    Rng rng(3);
    for (int i = 0; i < 50; ++i) {
        const Genome child = mutate(Genome{}, grammar, never(), rng);
        EXPECT_TRUE(child.edits.empty());
        EXPECT_EQ(child.settings.size(), 1u);
    }
    const Grammar no_genes = testing::grammar_of({}, {testing::make_rule("_k.cu_3", RuleKind::Statement, "a;", 3)});
    for (int i = 0; i < 50; ++i)
        EXPECT_EQ(mutate(Genome{}, no_genes, always(del("_k.cu_3")), rng), parse_genome("<_k.cu_3>"));
    try {
        mutate(Genome{}, no_genes, never(), rng);
        FAIL() << "a grammar with nothing to change must be an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("nothing to evolve"), std::string::npos) << e.what();
    }
}

TEST(Mutate, SameSeedSameChildDifferentSeedsDiffer) {
    const Grammar grammar = testing::small_grammar();
    const EditDrawer draw = grammar_edit_drawer(grammar);
    std::set<std::string> children;
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
        Rng a(seed), b(seed);
        const Genome x = mutate(parse_genome("<_k.cu_12>"), grammar, draw, a);
        EXPECT_EQ(x, mutate(parse_genome("<_k.cu_12>"), grammar, draw, b));
        children.insert(genome_to_text(x));
    }
    EXPECT_GT(children.size(), 5u);
}

TEST(UniformGeneCrossover, GenesWhereParentsAgreeAreKeptOthersComeFromEitherParent) {
    const Grammar grammar = testing::small_grammar();
    const Genome a = parse_genome("BLOCK=128 ROWS=1 <_k.cu_10>");
    const Genome b = parse_genome("BLOCK=128 ROWS=2 FAST=1 <_k.cu_11>");
    Rng rng(9);
    int rows_from_a = 0, fast_from_b = 0;
    for (int i = 0; i < 1000; ++i) {
        const Genome child = uniform_gene_crossover(a, b, grammar, rng);
        EXPECT_TRUE(child.edits.empty());  // the edit list is crossed separately
        EXPECT_EQ(setting_or(child, "BLOCK", "64"), "128");
        const std::string rows = setting_or(child, "ROWS", "4");
        EXPECT_TRUE(rows == "1" || rows == "2");
        rows_from_a += rows == "1";
        fast_from_b += setting_or(child, "FAST", "0") == "1";
    }
    EXPECT_NEAR(rows_from_a / 1000.0, 0.5, 0.06);
    EXPECT_NEAR(fast_from_b / 1000.0, 0.5, 0.06);
}

TEST(Crossover, ChildEditsAreASpliceOfTheParents) {
    const Grammar grammar = testing::small_grammar();
    const Genome a = parse_genome("<_k.cu_10> <_k.cu_11> <_k.cu_12>");
    const Genome b = parse_genome("<_k.cu_13> <_k.cu_14> <_k.cu_15>");
    Rng rng(21);
    const EditDrawer draw = never();
    std::set<std::string> distinct;
    for (int i = 0; i < 500; ++i) {
        const Genome child = crossover(a, b, grammar, draw, rng);
        ASSERT_FALSE(child.empty());
        bool is_splice = false;
        for (std::size_t af = 0; af <= 3; ++af)
            for (std::size_t at = af; at <= 3; ++at)
                for (std::size_t bf = 0; bf <= 3; ++bf)
                    for (std::size_t bt = bf; bt <= 3; ++bt)
                        is_splice = is_splice || two_point_splice(a.edits, b.edits, af, at, bf, bt) == child.edits;
        EXPECT_TRUE(is_splice) << genome_to_text(child);
        distinct.insert(genome_to_text(child));
    }
    EXPECT_GT(distinct.size(), 20u);  // the cut points really vary
}

TEST(Crossover, EmptyChildrenAreDiscardedAndAfterFiveTriesTheFirstParentIsMutated) {
    const Grammar grammar = testing::grammar_of({}, {testing::make_rule("_k.cu_3", RuleKind::Statement, "a;", 3),
                                                     testing::make_rule("_k.cu_4", RuleKind::Statement, "b;", 4)});
    // Two parents whose only common offspring is empty: no genes, and every splice of [] and [] is [].
    Rng rng(4);
    EXPECT_FALSE(crossover_once(Genome{}, Genome{}, grammar, rng).has_value());
    ScriptedDrawer script{{del("_k.cu_4")}};
    EXPECT_EQ(crossover(Genome{}, Genome{}, grammar, script.drawer(), rng), parse_genome("<_k.cu_4>"));
    EXPECT_EQ(script.next, 1u);
}

TEST(Crossover, AChildThatIsNotEmptyNeedsNoMutation) {
    const Grammar grammar = testing::small_grammar();
    const Genome a = parse_genome("BLOCK=32");
    const Genome b = parse_genome("BLOCK=32 ROWS=1");
    Rng rng(8);
    ScriptedDrawer script;
    for (int i = 0; i < 100; ++i) {
        const Genome child = crossover(a, b, grammar, script.drawer(), rng);
        EXPECT_EQ(setting_or(child, "BLOCK", ""), "32");
    }
    EXPECT_EQ(script.next, 0u);
}

TEST(CanonicalGenome, DropsDefaultsAndRepeatedSettings) {
    const Grammar grammar = testing::small_grammar();
    Genome genome;
    genome.settings = {{"BLOCK", "64"}, {"ROWS", "1"}, {"ROWS", "2"}, {"NOPE", "3"}};
    genome.edits = {del("_k.cu_10")};
    EXPECT_EQ(genome_to_text(canonical_genome(genome, grammar)), "ROWS=2 NOPE=3 <_k.cu_10>");
}

TEST(GenomeItems, NumbersSettingsThenEdits) {
    const Genome genome = parse_genome("BLOCK=32 <_k.cu_10> <_k.cu_11>+<_k.cu_12>");
    EXPECT_EQ(genome_items(genome), (std::vector<std::string>{"BLOCK=32", "<_k.cu_10>", "<_k.cu_11>+<_k.cu_12>"}));
    EXPECT_EQ(genome_to_text(without_item(genome, 0)), "<_k.cu_10> <_k.cu_11>+<_k.cu_12>");
    EXPECT_EQ(genome_to_text(without_item(genome, 2)), "BLOCK=32 <_k.cu_10>");
    EXPECT_THROW(without_item(genome, 3), Error);
    EXPECT_EQ(genome_to_text(settings_only(genome)), "BLOCK=32");
}

}  // namespace
}  // namespace gi
