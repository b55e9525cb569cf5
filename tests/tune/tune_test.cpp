#include "tune/tune.hpp"

#include <gtest/gtest.h>

#include <set>

#include "../support/search_test_support.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "grammar/build_grammar.hpp"
#include "source/source_file.hpp"

namespace gi {
namespace {

TEST(TunePoints, ExhaustiveSweepCoversEveryCombinationButTheStart) {
    const Grammar grammar = testing::small_grammar();  // BLOCK x ROWS = 3 x 4; FAST is a guard, not tuned
    EXPECT_EQ(tunable_genes(grammar), (std::vector<int>{0, 1}));
    Rng rng(1);
    bool sampled = true;
    double size = 0;
    const std::vector<Genome> points = tune_points(parse_genome("<_k.cu_10>"), grammar, 100, rng, sampled, size);
    EXPECT_FALSE(sampled);
    EXPECT_EQ(size, 12);
    ASSERT_EQ(points.size(), 11u);
    std::set<std::string> texts;
    for (const Genome& point : points) {
        texts.insert(genome_to_text(point));
        EXPECT_EQ(genome_to_text(Genome{{}, point.edits}), "<_k.cu_10>");  // the start's edits are kept
    }
    EXPECT_EQ(texts.size(), 11u);
    EXPECT_EQ(genome_to_text(points[0]), "BLOCK=32 ROWS=1 <_k.cu_10>");  // first gene counts fastest
    EXPECT_EQ(genome_to_text(points[1]), "ROWS=1 <_k.cu_10>");
    EXPECT_FALSE(texts.count("<_k.cu_10>"));
}

TEST(TunePoints, LargeSpacesAreSampledWithDistinctPoints) {
    std::vector<std::string> many;
    for (int i = 1; i <= 100; ++i) many.push_back(std::to_string(i));
    const Grammar grammar = testing::grammar_of(
        {testing::make_gene("A", GeneKind::Param, many, "1", true), testing::make_gene("B", GeneKind::Param, many, "1", true),
         testing::make_gene("MODE", GeneKind::Param, {"x", "y"}, "x", false)},
        {});
    Rng rng(2), same(2);
    bool sampled = false;
    double size = 0;
    const std::vector<Genome> points = tune_points(Genome{}, grammar, 50, rng, sampled, size);
    EXPECT_TRUE(sampled);
    EXPECT_EQ(size, 20000);  // MODE is categorical and swept too, as an auto-tuner would
    EXPECT_EQ(points.size(), 50u);
    std::set<std::string> texts;
    for (const Genome& p : points) texts.insert(genome_to_text(p));
    EXPECT_EQ(texts.size(), 50u);
    EXPECT_EQ(points, tune_points(Genome{}, grammar, 50, same, sampled, size));
}

TEST(TunePoints, CategoricalParamsAndFlagsAreSweptToo) {
    const Grammar grammar = testing::grammar_of(
        {testing::make_gene("BLOCK", GeneKind::Param, {"32", "64"}, "32", true),
         testing::make_gene("OUT", GeneKind::Param, {"float", "int"}, "float", false),
         testing::make_gene("use_fast_math", GeneKind::Flag, {"0", "1"}, "0", false),
         testing::make_gene("dlcm", GeneKind::Flag, {"off", "ca", "cg"}, "off", false),
         testing::make_gene("FAST", GeneKind::Guard, {"0", "1"}, "0", true)},
        {});
    EXPECT_EQ(tunable_genes(grammar), (std::vector<int>{0, 1, 2, 3}));  // a guard is code, not a setting
    Rng rng(1);
    bool sampled = true;
    double size = 0;
    const std::vector<Genome> points = tune_points(Genome{}, grammar, 100, rng, sampled, size);
    EXPECT_FALSE(sampled);
    EXPECT_EQ(size, 24);
    std::set<std::string> texts;
    for (const Genome& point : points) texts.insert(genome_to_text(point));
    EXPECT_EQ(texts.size(), 23u);
    EXPECT_TRUE(texts.count("use_fast_math=1 dlcm=cg"));
    EXPECT_TRUE(texts.count("BLOCK=64 OUT=int"));
}

FakeLandscapeOptions declared_landscape() {
    FakeLandscapeOptions options;
    options.random_effects = false;
    options.noise = 0.001;
    options.declared["BLOCK=128"] = FakeEffect::time(0.6);
    options.declared["BLOCK=32"] = FakeEffect::time(0.7);
    options.declared["ROWS=2"] = FakeEffect::time(0.8);
    options.declared["ROWS=1"] = FakeEffect::wrong(1.0, 0.1);  // fastest of all, but wrong
    return options;
}

TEST(Tune, FindsTheBestParameterPoint) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, declared_landscape());
    Rng rng(3);
    TuneOptions options;
    options.batch = 4;  // several batches, the start measured again in each
    const TuneResult result = tune(Genome{}, grammar, fake, options, rng);
    EXPECT_TRUE(result.ran);
    EXPECT_FALSE(result.sampled);
    EXPECT_EQ(result.best, "BLOCK=128 ROWS=2");
    EXPECT_EQ(result.points.size(), 11u);
    EXPECT_NEAR(speedup(result.original, result.best_time), 1 / (0.6 * 0.8), 0.01);
    EXPECT_EQ(fake.calls(), 3);
    for (const TunePoint& point : result.points)
        if (point.genome.find("ROWS=1") != std::string::npos) EXPECT_FALSE(point.accepted);
}

TEST(Tune, PartsOfASweepAreDisjointAndTogetherCoverIt) {
    const Grammar grammar = testing::small_grammar();  // 11 points besides the start
    std::set<std::string> covered;
    std::size_t measured = 0;
    bool winner_seen = false;
    for (int part = 1; part <= 3; ++part) {
        FakeEvaluator fake(grammar, declared_landscape());
        Rng rng(3);
        TuneOptions options;
        options.shard = part;
        options.shards = 3;
        const TuneResult result = tune(Genome{}, grammar, fake, options, rng);
        EXPECT_TRUE(result.ran);
        EXPECT_EQ(result.space_size, 12);
        EXPECT_EQ(result.note, "part " + std::to_string(part) + " of 3 of an exhaustive sweep: " +
                                   std::to_string(result.points.size()) + " of 12 points");
        EXPECT_EQ(result.points.size(), part == 3 ? 3u : 4u);  // every third point, interleaved
        for (const TunePoint& point : result.points) EXPECT_TRUE(covered.insert(point.genome).second) << point.genome;
        measured += result.points.size();
        winner_seen = winner_seen || result.best == "BLOCK=128 ROWS=2";
    }
    EXPECT_EQ(measured, 11u);
    EXPECT_EQ(covered.size(), 11u);
    EXPECT_TRUE(winner_seen);  // the unsplit sweep's winner is one part's winner
}

// A fake landscape that says, as the cuda evaluator can, that it judges nothing but the program.
class ProgramJudgingFake : public FakeEvaluator {
public:
    using FakeEvaluator::FakeEvaluator;
    EvaluatorTraits traits() const override {
        EvaluatorTraits t = FakeEvaluator::traits();
        t.judges_the_program = true;
        return t;
    }
};

TEST(Tune, APointThatIsTheStartsProgramIsNotMeasured) {
    // T is read only when MODE is 1: MODE=0 T=int is the start's program (MODE=0 T=float).
    const char* text = "#define MODE 0\n#define T float\n__global__ void k(float* out) {\n#if MODE == 1\n"
                       "    T v = 1;\n    out[0] = v;\n#else\n    out[0] = 0;\n#endif\n}\n";
    GrammarOptions options;
    options.params = {parse_param_declaration("MODE=0,1", "--param"), parse_param_declaration("T=float,int", "--param")};
    const Grammar grammar = build_grammar(make_source_file("k.cu", text), options);
    Rng rng(1);
    ProgramJudgingFake judging(grammar, FakeLandscapeOptions{});
    const TuneResult result = tune(Genome{}, grammar, judging, TuneOptions{}, rng);
    EXPECT_EQ(result.same_program, 1u);
    std::set<std::string> measured;
    for (const TunePoint& point : result.points) measured.insert(point.genome);
    EXPECT_EQ(measured, (std::set<std::string>{"MODE=1", "MODE=1 T=int"}));
    EXPECT_EQ(result.note, "swept all 2 of 4 points (1 more are the same program as one of these)");
    // An evaluator keyed by genome text measures every point.
    FakeEvaluator by_genome(grammar, FakeLandscapeOptions{});
    Rng same(1);
    EXPECT_EQ(tune(Genome{}, grammar, by_genome, TuneOptions{}, same).points.size(), 3u);
}

TEST(Tune, AllowedErrorLetsAnInexactPointWin) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, declared_landscape());
    Rng rng(3);
    TuneOptions options;
    options.rule.max_error = 1.0;
    EXPECT_EQ(tune(Genome{}, grammar, fake, options, rng).best, "BLOCK=128 ROWS=1");
}

TEST(Tune, KeepsTheStartWhenNothingBeatsItBeyondNoise) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.01;
    landscape.declared["BLOCK=32"] = FakeEffect::time(0.995);  // inside the noise
    FakeEvaluator fake(grammar, landscape);
    Rng rng(4);
    const TuneResult result = tune(parse_genome("<_k.cu_11>"), grammar, fake, TuneOptions{}, rng);
    EXPECT_TRUE(result.ran);
    EXPECT_EQ(result.best, "<_k.cu_11>");
    EXPECT_EQ(result.best, result.start);
}

TEST(Tune, PrefersFewerChangesAmongPointsEquallyFastWithinNoise) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.01;
    landscape.declared["BLOCK=128"] = FakeEffect::time(0.6);  // ROWS does not matter at all
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
        landscape.seed = seed;
        FakeEvaluator fake(grammar, landscape);
        Rng rng(seed);
        EXPECT_EQ(tune(Genome{}, grammar, fake, TuneOptions{}, rng).best, "BLOCK=128") << "landscape seed " << seed;
    }
    // With no parsimony the luckiest measurement wins, whichever ROWS it has.
    landscape.seed = 1;
    FakeEvaluator fake(grammar, landscape);
    Rng rng(1);
    TuneOptions greedy;
    greedy.parsimony_k = 0;
    EXPECT_EQ(tune(Genome{}, grammar, fake, greedy, rng).best.rfind("BLOCK=128", 0), 0u);
}

TEST(Tune, DoesNotRunWithoutTimingsOrTunableGenes) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator untimed;
    untimed.times = false;
    Rng rng(5);
    TuneResult result = tune(Genome{}, grammar, untimed, TuneOptions{}, rng);
    EXPECT_FALSE(result.ran);
    EXPECT_NE(result.note.find("no timings"), std::string::npos);
    EXPECT_EQ(untimed.calls, 0);
    const Grammar no_params = testing::grammar_of({testing::make_gene("FAST", GeneKind::Guard, {"0", "1"}, "0", true)}, {});
    testing::ScriptedEvaluator timed;
    result = tune(Genome{}, no_params, timed, TuneOptions{}, rng);
    EXPECT_FALSE(result.ran);
    EXPECT_NE(result.note.find("no --param or --flag gene"), std::string::npos);
}

// evolve --time-limit (issue 40): a sweep stops between batches once its deadline passes, and
// keeps the best of the points it measured; the first batch with a deadline is small, so the rate
// is known before a big batch is risked.
TEST(Tune, AtItsDeadlineTheSweepStopsAndKeepsTheBestMeasured) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator slow;
    double now = 0;
    slow.before_call = [&now](int) { now += 10; };
    slow.fallback = testing::ok_in(1.0);
    slow.results["BLOCK=32 ROWS=1"] = testing::ok_in(0.5);  // the first point of the sweep's order
    TuneOptions options;
    options.batch = 4;
    options.deadline = Deadline([&now] { return now; }, 15);
    Rng rng(1);
    const TuneResult result = tune(Genome{}, grammar, slow, options, rng);
    // A first batch of 4 at 0 s took 10 s, 2 s a point (the start counts); at 10 s the 5 s left hold
    // a batch of one point more; at 20 s the deadline has passed.
    EXPECT_EQ(slow.calls, 2);
    EXPECT_TRUE(result.stopped);
    EXPECT_EQ(result.planned, 11u);
    EXPECT_EQ(result.points.size(), 5u);
    EXPECT_EQ(result.note, "stopped at the time limit after 5 of 11 points (a sweep of all 11 of 12 points); the best of "
                           "those is kept");
    EXPECT_EQ(result.best, "BLOCK=32 ROWS=1");
}

TEST(Tune, WithoutADeadlineNothingChanges) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator evaluator;
    evaluator.fallback = testing::ok_in(1.0);
    Rng rng(1);
    const TuneResult result = tune(Genome{}, grammar, evaluator, TuneOptions{}, rng);
    EXPECT_EQ(evaluator.calls, 1);
    EXPECT_FALSE(result.stopped);
    EXPECT_EQ(result.note, "swept all 11 of 12 points");
}

}  // namespace
}  // namespace gi
