#include "search/nsga2_sort.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "evaluate/fake_evaluator.hpp"
#include "search/code_edit.hpp"
#include "run/evolve.hpp"
#include "genome/genome_ops.hpp"
#include "search/nsga2.hpp"
#include "../support/search_test_support.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

Objectives ok(double time, double error, double max_error = 1.0) { return make_objectives(true, time, error, max_error); }

TEST(Nsga2Sort, ConstraintDomination) {
    EXPECT_TRUE(dominates(ok(1, 0.5), ok(2, 0.5)));
    EXPECT_TRUE(dominates(ok(1, 0.4), ok(1, 0.5)));
    EXPECT_FALSE(dominates(ok(1, 0.5), ok(1, 0.5))) << "equal points do not dominate";
    EXPECT_FALSE(dominates(ok(1, 0.9), ok(2, 0.1))) << "a trade-off";
    EXPECT_TRUE(dominates(ok(9, 0.9), ok(0.1, 1.5))) << "within budget beats beyond it, however fast";
    EXPECT_TRUE(dominates(ok(9, 1.2), ok(0.1, 1.5))) << "beyond the budget: the smaller excess wins";
    EXPECT_FALSE(dominates(ok(9, 1.5), ok(0.1, 1.5)));
    const Objectives failed = make_objectives(false, 0.1, 0, 1.0);
    EXPECT_TRUE(dominates(ok(9, 100), failed)) << "a run beyond any budget still beats a failure";
    EXPECT_FALSE(dominates(failed, failed));
    EXPECT_FALSE(make_objectives(true, NAN, 0, 1).feasible()) << "an untimed result cannot be ranked on time";
}

TEST(Nsga2Sort, ExactModeRanksByTimeAlone) {
    // --max-error 0: any error is beyond the budget, so the first front is the fastest exact variant.
    const std::vector<Objectives> points{ok(1.0, 0, 0), ok(0.5, 0.01, 0), ok(0.8, 0, 0)};
    const auto fronts = non_dominated_sort(points);
    ASSERT_EQ(fronts.size(), 3u);
    EXPECT_EQ(fronts[0], std::vector<std::size_t>{2});
    EXPECT_EQ(fronts[1], std::vector<std::size_t>{0});
    EXPECT_EQ(fronts[2], std::vector<std::size_t>{1});
}

TEST(Nsga2Sort, FastNonDominatedSortFindsTheFronts) {
    const std::vector<Objectives> points{
        ok(1.0, 0.5),                       // 0: front 0
        ok(0.5, 0.9),                       // 1: front 0
        ok(2.0, 0.1),                       // 2: front 0
        ok(1.5, 0.6),                       // 3: dominated by 0
        make_objectives(false, 1, 0, 1.0),  // 4: failed
        ok(0.1, 2.0),                       // 5: beyond the budget by 1
        ok(0.1, 1.5),                       // 6: beyond by 0.5
        ok(1.6, 0.7),                       // 7: dominated by 3
    };
    const auto fronts = non_dominated_sort(points);
    const std::vector<std::vector<std::size_t>> expected{{0, 1, 2}, {3}, {7}, {6}, {5}, {4}};
    EXPECT_EQ(fronts, expected);
    const auto ranks = crowded_ranks(points);
    EXPECT_EQ(ranks[3].front, 1);
    EXPECT_EQ(ranks[4].front, 5);
}

TEST(Nsga2Sort, CrowdingDistanceRewardsTheEndsAndTheLonely) {
    // Five points on one front: time rises while error falls.
    const std::vector<Objectives> points{ok(1, 0.8), ok(2, 0.6), ok(3, 0.5), ok(4, 0.2), ok(5, 0.0)};
    const std::vector<std::size_t> front{0, 1, 2, 3, 4};
    const auto d = crowding_distance(points, front);
    EXPECT_TRUE(std::isinf(d[0]));
    EXPECT_TRUE(std::isinf(d[4]));
    EXPECT_NEAR(d[1], (3.0 - 1.0) / 4 + (0.8 - 0.5) / 0.8, 1e-12);
    EXPECT_NEAR(d[2], (4.0 - 2.0) / 4 + (0.6 - 0.2) / 0.8, 1e-12);
    EXPECT_NEAR(d[3], (5.0 - 3.0) / 4 + (0.5 - 0.0) / 0.8, 1e-12);
    EXPECT_GT(d[2], d[1]) << "point 2 sits in a sparser region";
    const auto two = crowding_distance(points, {0, 1});
    EXPECT_TRUE(std::isinf(two[0]) && std::isinf(two[1]));
}

TEST(Nsga2Sort, SelectBestAndElitesFollowTheCrowdedOrder) {
    const std::vector<CrowdedRank> ranks{{1, 5.0}, {0, 1.0}, {0, INFINITY}, {2, INFINITY}, {0, 1.0}};
    EXPECT_EQ(select_best(ranks, 3), (std::vector<std::size_t>{2, 1, 4}));
    EXPECT_EQ(select_best(ranks, 99).size(), 5u);
    EXPECT_EQ(select_best(ranks, 5).back(), 3u);
}

TEST(Nsga2Sort, BinaryTournamentPrefersTheBetter) {
    Rng rng(5);
    const std::vector<CrowdedRank> two{{1, 0}, {0, 0}};
    for (int i = 0; i < 200; ++i) EXPECT_EQ(binary_tournament(two, rng), 1u);
    // Among three of different fronts the best wins both tournaments it enters: 2/3 of them.
    const std::vector<CrowdedRank> three{{2, 0}, {0, 0}, {1, 0}};
    std::map<std::size_t, int> wins;
    for (int i = 0; i < 3000; ++i) ++wins[binary_tournament(three, rng)];
    EXPECT_EQ(wins[0], 0) << "the worst never wins";
    EXPECT_NEAR(wins[1] / 3000.0, 2.0 / 3, 0.04);
    EXPECT_EQ(binary_tournament({{0, 0}}, rng), 0u);
    EXPECT_THROW(binary_tournament({}, rng), Error);
}

using testing::del;

TEST(Nsga2Sort, MessyCrossoverShufflesBothEditListsIntoTwoChildren) {
    const std::vector<Edit> a{del("_k.cu_1"), del("_k.cu_2"), del("_k.cu_3")};
    const std::vector<Edit> b{del("_k.cu_4"), del("_k.cu_2")};
    Rng rng(11);
    std::map<std::size_t, int> first_sizes;
    bool reordered = false;
    for (int i = 0; i < 400; ++i) {
        auto [x, y] = messy_crossover(a, b, rng);
        ++first_sizes[x.size()];
        // Together the children hold every parent edit; a child never holds one twice.
        std::vector<Edit> all = x;
        all.insert(all.end(), y.begin(), y.end());
        for (const Edit& e : {del("_k.cu_1"), del("_k.cu_3"), del("_k.cu_4")})
            EXPECT_EQ(std::count(all.begin(), all.end(), e), 1);
        EXPECT_GE(std::count(all.begin(), all.end(), del("_k.cu_2")), 1);
        EXPECT_LE(x.size() + y.size(), 5u);
        for (const auto* child : {&x, &y})
            for (const Edit& e : *child) EXPECT_EQ(std::count(child->begin(), child->end(), e), 1);
        if (x.size() >= 2 && x[0].target > x[1].target) reordered = true;
    }
    EXPECT_TRUE(reordered) << "the shuffle changes the order of edits";
    EXPECT_GE(first_sizes.size(), 5u) << "the cut point varies";
    Rng r1(3), r2(3);
    EXPECT_EQ(messy_crossover(a, b, r1), messy_crossover(a, b, r2)) << "same seed, same children";
    auto [e1, e2] = messy_crossover({}, {}, rng);
    EXPECT_TRUE(e1.empty() && e2.empty());
}

// ---- the strategy (appended to tests/search/nsga2_test.cpp once the search stage is on main) ----

FakeLandscapeOptions nsga2_landscape() {
    // The known optimum of the search tests: BLOCK=128 x0.6, delete _k.cu_12 x0.7, IF 20->21 x0.9.
    FakeLandscapeOptions options;
    options.random_effects = false;
    options.noise = 0.002;
    options.cases = 5;
    options.declared["BLOCK=128"] = FakeEffect::time(0.6);
    options.declared["<_k.cu_12>"] = FakeEffect::time(0.7);
    options.declared["<IF_k.cu_20><IF_k.cu_21>"] = FakeEffect::time(0.9);
    options.declared["ROWS=1"] = FakeEffect::time(1.5);
    options.declared["<_k.cu_11>"] = FakeEffect::compile_error();
    // An approximation: twice as fast, 0.5% error.
    options.declared["<_k.cu_10>"] = FakeEffect::wrong(0.005, 0.5);
    return options;
}

bool has_item(const std::string& genome, const std::string& item) {
    const std::vector<std::string> items = genome_items(parse_genome(genome));
    return std::find(items.begin(), items.end(), item) != items.end();
}

StrategyContext nsga2_context(const Grammar& grammar, std::size_t population, double max_error = 0) {
    StrategyContext context;
    context.grammar = &grammar;
    context.population = population;
    context.draw = grammar_edit_drawer(grammar);
    context.max_error = max_error;
    return context;
}

std::filesystem::path nsga2_dir(const std::string& name) {
    const auto dir = std::filesystem::temp_directory_path() / ("gi-nsga2-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir);
    return dir;
}

TEST(Nsga2Strategy, InitialPopulationIsUniqueGenomesOfThreeMutations) {
    const Grammar grammar = testing::small_grammar();
    Nsga2Strategy strategy(nsga2_context(grammar, 12));
    Rng rng(1);
    const std::vector<Genome> population = strategy.initial_population(rng);
    ASSERT_EQ(population.size(), 12u);
    std::set<std::string> texts;
    for (const Genome& g : population) {
        EXPECT_FALSE(g.empty());
        texts.insert(genome_to_text(g));
    }
    EXPECT_EQ(texts.size(), 12u);
    ASSERT_EQ(strategy.births().size(), 12u);
    for (const BirthInfo& b : strategy.births()) EXPECT_EQ(b.birth, Birth::Init);
}

TEST(Nsga2Strategy, KeepsTheBestQuarterAsElitesAndBreedsAFullPopulationOfNewGenomes) {
    const Grammar grammar = testing::small_grammar();
    Nsga2Strategy strategy(nsga2_context(grammar, 8));
    Rng rng(2);
    const std::vector<Genome> first = strategy.initial_population(rng);
    ScoredBatch batch;
    for (std::size_t i = 0; i < first.size(); ++i) {
        Scored s;
        s.genome = first[i];
        s.result = testing::ok_in(1.0 - 0.05 * static_cast<double>(i));  // later ones faster
        s.speedup = 1.0 / s.result.time.median_ms;
        batch.scored.push_back(s);
    }
    batch.scored[7].result.status = EvalStatus::CompileError;  // the "fastest" did not even compile
    batch.scored[7].speedup = 0;
    const std::vector<Genome> next = strategy.next_population(batch, rng);
    ASSERT_EQ(next.size(), 8u + 2u);
    EXPECT_EQ(next[0], first[6]) << "the fastest that ran leads the elites";
    EXPECT_EQ(next[1], first[5]);
    const auto births = strategy.births();
    ASSERT_EQ(births.size(), next.size());
    EXPECT_EQ(births[0].birth, Birth::Elite);
    EXPECT_EQ(births[1].birth, Birth::Elite);
    std::set<std::string> texts;
    int crossed = 0;
    for (std::size_t i = 0; i < next.size(); ++i) {
        EXPECT_TRUE(texts.insert(genome_to_text(next[i])).second) << "a copy costs an evaluation: " << genome_to_text(next[i]);
        if (i >= 2) {
            EXPECT_TRUE(births[i].birth == Birth::Crossover || births[i].birth == Birth::Mutation);
            crossed += births[i].birth == Birth::Crossover;
            for (const std::string& parent : births[i].parents)
                EXPECT_NE(parent, genome_to_text(first[7])) << "a failure never wins a tournament against a run";
        }
    }
    EXPECT_GT(crossed, 0);
}

TEST(Nsga2Strategy, BirthsSurviveACheckpoint) {
    const Grammar grammar = testing::small_grammar();
    Nsga2Strategy strategy(nsga2_context(grammar, 6));
    Rng rng(3);
    const std::vector<Genome> first = strategy.initial_population(rng);
    ScoredBatch batch;
    for (const Genome& g : first) {
        Scored s;
        s.genome = g;
        s.result = testing::ok_in(0.8);
        s.speedup = 1.25;
        batch.scored.push_back(s);
    }
    strategy.next_population(batch, rng);
    Nsga2Strategy restored(nsga2_context(grammar, 6));
    restored.restore_state(strategy.save_state());
    ASSERT_EQ(restored.births().size(), strategy.births().size());
    for (std::size_t i = 0; i < restored.births().size(); ++i) {
        EXPECT_EQ(restored.births()[i].birth, strategy.births()[i].birth);
        EXPECT_EQ(restored.births()[i].parents, strategy.births()[i].parents);
    }
    EXPECT_THROW(restored.restore_state("cloning\tA\n"), Error);
}

TEST(Nsga2Strategy, ReachesTheKnownOptimumInExactMode) {
    const Grammar grammar = testing::small_grammar();
    for (std::uint64_t seed : {4, 5, 6, 7}) {
        FakeEvaluator fake(grammar, nsga2_landscape());
        EvolveOptions options;
        options.strategy = "nsga2";
        options.population = 16;
        options.generations = 25;
        options.seed = seed;
        options.pre_tune = false;
        options.post_tune = false;
        options.minimise = false;
        const auto dir = nsga2_dir("exact");
        const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh);
        ASSERT_TRUE(record.best.found);
        EXPECT_GT(record.best.speedup, 1 / (0.6 * 0.7 * 0.9) * 0.99) << "seed " << seed << ": " << record.best.genome;
        EXPECT_EQ(record.best.error, 0) << "exact mode never accepts an approximation";
        EXPECT_FALSE(has_item(record.best.genome, "<_k.cu_10>")) << record.best.genome;
        std::filesystem::remove_all(dir);
    }
}

TEST(Nsga2Strategy, AnErrorBudgetAdmitsTheApproximation) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, nsga2_landscape());
    EvolveOptions options;
    options.strategy = "nsga2";
    options.population = 16;
    options.generations = 15;
    options.seed = 4;
    options.pre_tune = false;
    options.post_tune = false;
    options.minimise = false;
    options.acceptance.max_error = 0.01;
    const auto dir = nsga2_dir("approximate");
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh);
    ASSERT_TRUE(record.best.found);
    EXPECT_TRUE(has_item(record.best.genome, "<_k.cu_10>")) << record.best.genome;
    EXPECT_GT(record.best.speedup, 1 / (0.6 * 0.7 * 0.9 * 0.5) * 0.99) << record.best.genome;
    EXPECT_LE(record.best.error, 0.01);
    std::filesystem::remove_all(dir);
}

TEST(Nsga2Strategy, ParetoFrontIsTheNonDominatedTradeOff) {
    std::vector<Objectives> points{ok(1.0, 0), ok(0.5, 0.005), ok(0.7, 0.01), make_objectives(false, 0, 0, 0),
                                   ok(0.4, 0.02), ok(0.9, 0)};
    // Ignoring the budget: 0.4/0.02, 0.5/0.005 and 0.9/0 are the trade-off, fastest first.
    EXPECT_EQ(pareto_front(points), (std::vector<std::size_t>{4, 1, 5}));
    EXPECT_TRUE(pareto_front({}).empty());
}

}  // namespace
}  // namespace gi
