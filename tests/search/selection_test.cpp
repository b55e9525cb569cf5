#include "search/selection.hpp"

#include <gtest/gtest.h>

#include <set>

#include "search/gp_strategy.hpp"
#include "genome/genome_ops.hpp"
#include "../support/search_test_support.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

Scored scored(const std::string& genome, bool accepted, double error, double ms) {
    Scored s;
    s.genome = parse_genome(genome);
    s.result = testing::ok_in(ms, 0.001, error);
    s.accepted = accepted;
    s.speedup = 1.0 / ms;
    return s;
}

TEST(TruncationSelection, OnlyAcceptedRankedByErrorThenTime) {
    const std::vector<Scored> population{
        scored("<_k.cu_10>", true, 0.0, 0.9),  // 0
        scored("<_k.cu_11>", false, 0.0, 0.1), // 1: fastest but not accepted
        scored("<_k.cu_12>", true, 0.5, 0.2),  // 2: fast but some error
        scored("<_k.cu_13>", true, 0.0, 0.5),  // 3
        scored("<_k.cu_14>", true, 0.0, 0.5),  // 4: ties with 3, comes after it
    };
    EXPECT_EQ(truncation_select(population, 10), (std::vector<std::size_t>{3, 4, 0, 2}));
    EXPECT_EQ(truncation_select(population, 2), (std::vector<std::size_t>{3, 4}));
    EXPECT_TRUE(truncation_select(population, 0).empty());
    EXPECT_TRUE(truncation_select({scored("<_k.cu_10>", false, 0, 0.1)}, 5).empty());
}

// Individuals 0-5 accepted, fastest first by index; `failed` ones were accepted until the gate failed them.
std::vector<Scored> ranked_six(std::initializer_list<std::size_t> failed) {
    std::vector<Scored> population;
    for (int i = 0; i < 6; ++i) population.push_back(scored("<_k.cu_1" + std::to_string(i) + ">", true, 0, 0.1 * (i + 1)));
    for (std::size_t f : failed) {
        population[f].accepted = false;
        population[f].failed_gate = true;
    }
    return population;
}

std::vector<std::size_t> filled(const std::vector<std::optional<std::size_t>>& slots) {
    std::vector<std::size_t> out;
    for (const auto& slot : slots)
        if (slot) out.push_back(*slot);
    return out;
}

TEST(ParentSlots, ParentsTheGateFailedAreReplacedInPlaceByTheNextThatPassed) {
    using Slots = std::vector<std::optional<std::size_t>>;
    // Nothing failed: truncation_select's parents in its order.
    EXPECT_EQ(parent_slots(ranked_six({}), 3), (Slots{0, 1, 2}));
    // Parent 1 failed: 3 (the next that passed) takes its slot; the others keep theirs.
    EXPECT_EQ(parent_slots(ranked_six({1}), 3), (Slots{0, 3, 2}));
    // 0 and 2 failed, and 3 too, beyond the parents: 4 and 5 fill their slots in order.
    EXPECT_EQ(parent_slots(ranked_six({0, 2, 3}), 3), (Slots{4, 1, 5}));
    // More failed than can be replaced: the slots left empty.
    EXPECT_EQ(parent_slots(ranked_six({0, 1, 2, 3}), 3), (Slots{4, 5, std::nullopt}));
    // Always the same set as truncation_select's.
    for (auto failed : {std::initializer_list<std::size_t>{}, {1}, {0, 2, 3}, {0, 1, 2, 3}, {5}}) {
        const std::vector<Scored> population = ranked_six(failed);
        std::vector<std::size_t> slots = filled(parent_slots(population, 3));
        std::vector<std::size_t> truncation = truncation_select(population, 3);
        std::sort(slots.begin(), slots.end());
        std::sort(truncation.begin(), truncation.end());
        EXPECT_EQ(slots, truncation);
    }
    // Never accepted (failed evaluate(), not the gate): not ranked at all.
    std::vector<Scored> population = ranked_six({});
    population[0].accepted = false;
    EXPECT_EQ(parent_slots(population, 3), (Slots{1, 2, 3}));
}

StrategyContext context_for(const Grammar& grammar, std::size_t population) {
    StrategyContext context;
    context.grammar = &grammar;
    context.population = population;
    context.draw = grammar_edit_drawer(grammar);
    return context;
}

bool is_mutant_of(const Genome& child, const Genome& parent) {
    // One gene changed, or one edit appended.
    if (child.edits.size() == parent.edits.size() + 1)
        return std::equal(parent.edits.begin(), parent.edits.end(), child.edits.begin()) &&
               child.settings == parent.settings;
    return child.edits == parent.edits && child.settings != parent.settings;
}

// Eight evaluated individuals of which two are accepted: "ROWS=2" (0.6 ms) and "<_k.cu_10>" (0.8 ms).
std::vector<Scored> two_accepted_of_eight() {
    return {
        scored("<_k.cu_10>", true, 0, 0.8),  scored("<_k.cu_11>", false, 0, 0.5),
        scored("ROWS=2", true, 0, 0.6),      scored("<_k.cu_12>", false, 0, 0.9),
        scored("<_k.cu_13>", false, 0, 0.9), scored("<_k.cu_14>", false, 0, 0.9),
        scored("<_k.cu_15>", false, 0, 0.9), scored("BLOCK=32", false, 0, 0.9),
    };
}

TEST(GpBreeding, EachParentMakesAMutantAndACrossoverChildTheRestAreFreshMutants) {
    const Grammar grammar = testing::small_grammar();
    std::vector<Scored> population = two_accepted_of_eight();
    Rng rng(12);
    const std::vector<Genome> next = gp_next_population(population, context_for(grammar, 8), rng);
    ASSERT_EQ(next.size(), 8u);
    // Parents best first: "ROWS=2" (0.6 ms), then "<_k.cu_10>" (0.8 ms).
    EXPECT_TRUE(is_mutant_of(next[0], parse_genome("ROWS=2"))) << genome_to_text(next[0]);
    EXPECT_TRUE(is_mutant_of(next[2], parse_genome("<_k.cu_10>"))) << genome_to_text(next[2]);
    // Crossover children mix only the two parents' material.
    for (std::size_t i : {1u, 3u}) {
        const Genome& child = next[i];
        EXPECT_TRUE(setting_or(child, "ROWS", "4") == "2" || setting_or(child, "ROWS", "4") == "4");
        for (const Edit& edit : child.edits) EXPECT_EQ(edit_to_text(edit), "<_k.cu_10>");
        EXPECT_FALSE(child.empty());
    }
    // Four fresh single mutants of the (empty) base, unique among the new population.
    std::set<std::string> texts;
    for (const Genome& g : next) texts.insert(genome_to_text(g));
    for (std::size_t i = 4; i < 8; ++i) EXPECT_EQ(genome_item_count(next[i]), 1u) << genome_to_text(next[i]);
    for (std::size_t i = 4; i < 8; ++i)
        for (std::size_t j = 0; j < 8; ++j)
            if (i != j) EXPECT_NE(genome_to_text(next[i]), genome_to_text(next[j]));
}

// The history database records how each GP child was born and from whom (issue 6), and a resumed
// run still knows the births of the population it evaluates next.
TEST(GpBreeding, ReportsEachChildsBirthAndParentsAndKeepsThemInItsState) {
    const Grammar grammar = testing::small_grammar();
    std::vector<Scored> population = two_accepted_of_eight();
    GpStrategy gp(context_for(grammar, 8));
    Rng rng(12);
    const std::vector<Genome> first = gp.initial_population(rng);
    ASSERT_EQ(gp.births().size(), first.size());
    for (const BirthInfo& b : gp.births()) {
        EXPECT_EQ(b.birth, Birth::Init);
        EXPECT_EQ(b.parents, std::vector<std::string>{""});  // the (empty) base genome
    }
    ScoredBatch batch;
    batch.scored = population;
    const std::vector<Genome> next = gp.next_population(batch, rng);
    const std::vector<BirthInfo> births = gp.births();
    ASSERT_EQ(births.size(), next.size());
    EXPECT_EQ(births[0].birth, Birth::Mutation);
    EXPECT_EQ(births[0].parents, std::vector<std::string>{"ROWS=2"});
    EXPECT_EQ(births[1].birth, Birth::Crossover);
    EXPECT_EQ(births[1].parents, (std::vector<std::string>{"ROWS=2", "<_k.cu_10>"}));
    EXPECT_EQ(births[2].birth, Birth::Mutation);
    EXPECT_EQ(births[2].parents, std::vector<std::string>{"<_k.cu_10>"});
    EXPECT_EQ(births[3].birth, Birth::Crossover);
    EXPECT_EQ(births[3].parents, (std::vector<std::string>{"<_k.cu_10>", "ROWS=2"}));
    for (std::size_t i = 4; i < 8; ++i) EXPECT_EQ(births[i].birth, Birth::Init);

    GpStrategy resumed(context_for(grammar, 8));
    resumed.restore_state(gp.save_state());
    ASSERT_EQ(resumed.births().size(), births.size());
    for (std::size_t i = 0; i < births.size(); ++i) {
        EXPECT_EQ(resumed.births()[i].birth, births[i].birth);
        EXPECT_EQ(resumed.births()[i].parents, births[i].parents);
    }
    EXPECT_THROW(resumed.restore_state("Spontaneous\tROWS=2\n"), Error);
}

// The drawer is readied for the generation's parents before any child is bred (the PTX edit
// drawer compiles their PTX at once), and breeding is the same with or without it.
TEST(GpBreeding, TheParentsAreGivenToTheDrawersPrefetchFirst) {
    const Grammar grammar = testing::small_grammar();
    StrategyContext context = context_for(grammar, 8);
    std::vector<std::vector<std::string>> given;
    context.prefetch = [&](const std::vector<Genome>& parents) {
        std::vector<std::string> texts;
        for (const Genome& g : parents) texts.push_back(genome_to_text(g));
        given.push_back(texts);
    };
    Rng a(12), b(12);
    const std::vector<Genome> with = gp_next_population(two_accepted_of_eight(), context, a);
    ASSERT_EQ(given.size(), 1u);
    EXPECT_EQ(given[0], (std::vector<std::string>{"ROWS=2", "<_k.cu_10>"}));
    EXPECT_EQ(with, gp_next_population(two_accepted_of_eight(), context_for(grammar, 8), b));
}

TEST(GpBreeding, AtMostHalfThePopulationBreeds) {
    const Grammar grammar = testing::small_grammar();
    std::vector<Scored> population;
    for (int i = 0; i < 6; ++i) population.push_back(scored("<_k.cu_1" + std::to_string(i) + ">", true, 0, 1.0 - i * 0.1));
    Rng rng(13);
    const std::vector<Genome> next = gp_next_population(population, context_for(grammar, 6), rng);
    ASSERT_EQ(next.size(), 6u);
    // The three fastest (_k.cu_15, _k.cu_14, _k.cu_13) are the parents; their mutants come first in pairs.
    EXPECT_TRUE(is_mutant_of(next[0], parse_genome("<_k.cu_15>")));
    EXPECT_TRUE(is_mutant_of(next[2], parse_genome("<_k.cu_14>")));
    EXPECT_TRUE(is_mutant_of(next[4], parse_genome("<_k.cu_13>")));
}

TEST(GpBreeding, ALoneParentMakesTwoMutantsAndNoParentsMeansAFreshPopulation) {
    const Grammar grammar = testing::small_grammar();
    std::vector<Scored> population{scored("<_k.cu_10>", true, 0, 0.5), scored("<_k.cu_11>", false, 0, 0.5),
                                   scored("<_k.cu_12>", false, 0, 0.5), scored("<_k.cu_13>", false, 0, 0.5)};
    Rng rng(14);
    std::vector<Genome> next = gp_next_population(population, context_for(grammar, 4), rng);
    ASSERT_EQ(next.size(), 4u);
    EXPECT_TRUE(is_mutant_of(next[0], parse_genome("<_k.cu_10>")));
    EXPECT_TRUE(is_mutant_of(next[1], parse_genome("<_k.cu_10>")));
    population[0].accepted = false;
    next = gp_next_population(population, context_for(grammar, 4), rng);
    ASSERT_EQ(next.size(), 4u);
    std::set<std::string> texts;
    for (const Genome& g : next) {
        EXPECT_EQ(genome_item_count(g), 1u);
        texts.insert(genome_to_text(g));
    }
    EXPECT_EQ(texts.size(), 4u);
}

TEST(GpBreeding, FreshMutantsBuildOnTheStartingGenome) {
    const Grammar grammar = testing::small_grammar();
    StrategyContext context = context_for(grammar, 5);
    context.base = parse_genome("BLOCK=128 ROWS=2");
    Rng rng(15);
    GpStrategy strategy(context);
    for (const Genome& g : strategy.initial_population(rng)) {
        // A single change on top of BLOCK=128 ROWS=2: at most one of the two settings differs.
        int differ = (setting_or(g, "BLOCK", "64") != "128") + (setting_or(g, "ROWS", "4") != "2");
        EXPECT_LE(differ, 1) << genome_to_text(g);
        if (differ == 1) {
            EXPECT_TRUE(g.edits.empty());
        }
    }
}

// Evolve breeds its guess before the gate and keeps the measurements of every child the real
// generation shares with it (run/evolve.cpp): a parent the gate fails changes only the children
// it took part in, and the generator moves by one draw however breeding went.
TEST(GpBreeding, AParentTheGateFailsChangesOnlyTheChildrenItTookPartIn) {
    const Grammar grammar = testing::small_grammar();
    std::vector<Scored> population;
    for (int i = 0; i < 40; ++i) {
        // 40 different genomes: an edit, ROWS and BLOCK.
        const std::string block = i < 24 ? "32" : "128";
        Genome g = parse_genome("<_k.cu_1" + std::to_string(i % 6) + "> BLOCK=" + block + " ROWS=" +
                                std::to_string((i / 6) % 4 + 1));
        Scored s;
        s.genome = g;
        s.result = testing::ok_in(0.1 + 0.01 * i);
        s.accepted = true;
        population.push_back(s);
    }
    const StrategyContext context = context_for(grammar, 40);
    Rng guess_rng(21), real_rng(21);
    const std::vector<Genome> guess = gp_next_population(population, context, guess_rng);
    population[3].accepted = false;  // the fourth parent fails the gate
    population[3].failed_gate = true;
    std::vector<BirthInfo> births;
    const std::vector<Genome> real = gp_next_population(population, context, real_rng, &births);
    EXPECT_EQ(guess_rng.next(), real_rng.next());
    ASSERT_EQ(guess.size(), real.size());
    const std::string failed = genome_to_text(population[3].genome);
    std::size_t differ = 0;
    for (std::size_t i = 0; i < real.size(); ++i) {
        const bool took_part = i < 2 * 20 && (i / 2 == 3 || (births[i].parents.size() == 2 &&
                                                              births[i].parents[1] == genome_to_text(population[20].genome)));
        if (genome_to_text(guess[i]) != genome_to_text(real[i])) {
            ++differ;
            EXPECT_TRUE(took_part) << "child " << i << " changed: " << genome_to_text(guess[i]) << " -> "
                                   << genome_to_text(real[i]);
        }
        for (const std::string& parent : births[i].parents) EXPECT_NE(parent, failed);
    }
    EXPECT_GE(differ, 1u);
    EXPECT_LE(differ, 6u) << "of 40";
}

}  // namespace
}  // namespace gi
