// Issue 40, item 6: a generation the time limit can stop. A sample program's first generation (nvcc
// at 1 s a compile, -rdc) ran past its 23 s limit in one uninterruptible batch, silent, until the
// CMake module's watchdog killed the run. A generation whose time is not known yet, or that is
// expected to end past the search's deadline, is now evaluated in parts (run/generation_parts.hpp).
#include "run/generation_parts.hpp"

#include <gtest/gtest.h>

#include <map>
#include <regex>

#include "../support/gi_tool_run.hpp"
#include "../support/search_test_support.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "run/evolve.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// Each variant it is sent "takes" `seconds_a_variant` on a fake clock; counts the programs sent.
class PartsClockEvaluator : public testing::ScriptedEvaluator {
public:
    double now = 0;
    double seconds_a_variant = 1;
    std::vector<std::size_t> sent;            // variants per call
    std::map<std::string, int> times_sent;    // by genome text
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        now += seconds_a_variant * static_cast<double>(variants.size());
        sent.push_back(variants.size());
        for (const Variant& v : variants) ++times_sent[genome_to_text(v.genome)];
        return ScriptedEvaluator::evaluate(variants, case_index);
    }
};

// 20 genomes of 14 programs: six are repeats, three of them of a genome in an earlier part.
std::vector<Genome> parts_genomes() {
    std::vector<Genome> genomes;
    for (const char* text : {"BLOCK=32", "BLOCK=128", "ROWS=1", "ROWS=2", "ROWS=3", "FAST=1", "<_k.cu_10>", "BLOCK=32",
                             "<_k.cu_11>", "<_k.cu_12>", "ROWS=2", "<_k.cu_13>", "<_k.cu_14>", "BLOCK=32 ROWS=2",
                             "BLOCK=128 ROWS=1", "<_k.cu_15>", "FAST=1", "BLOCK=128 ROWS=1", "ROWS=1", "BLOCK=32"})
        genomes.push_back(parse_genome(text));
    return genomes;
}

EvaluateGenomes parts_evaluate(Evaluator& evaluator, const Grammar& grammar) {
    return [&evaluator, &grammar](const std::vector<Genome>& genomes, int case_index) {
        return evaluate_genomes(evaluator, grammar, genomes, case_index, AcceptanceRule{});
    };
}

TEST(GenerationParts, PartsMakeTheBatchOneCallMakesAndMeasureEachProgramOnce) {
    const Grammar grammar = testing::small_grammar();
    const std::vector<Genome> genomes = parts_genomes();
    PartsClockEvaluator whole_evaluator;
    whole_evaluator.fallback = testing::ok_in(1.1);
    whole_evaluator.results["ROWS=2"] = testing::ok_in(0.5);
    const ScoredBatch whole = evaluate_genomes(whole_evaluator, grammar, genomes, 2, AcceptanceRule{});

    PartsClockEvaluator evaluator;
    evaluator.fallback = whole_evaluator.fallback;
    evaluator.results = whole_evaluator.results;
    std::vector<std::string> heard;
    const GenerationParts parts =
        evaluate_in_parts(genomes, 2, grammar, parts_evaluate(evaluator, grammar), Deadline([&] { return evaluator.now; }, 1000),
                          -1, "generation 1/5", [&](const std::string& line) { heard.push_back(line); });
    // The first part: 8 genomes (7 programs); then the 11 that 10 s holds at the 0.875 s one took so
    // far (7 programs: three are repeats of the first part's, one of its own).
    EXPECT_EQ(evaluator.sent, (std::vector<std::size_t>{7, 7}));
    EXPECT_EQ(parts.parts, 2);
    EXPECT_FALSE(parts.stopped());
    for (const auto& [genome, count] : evaluator.times_sent) EXPECT_EQ(count, 1) << genome;
    ASSERT_EQ(parts.batch.scored.size(), whole.scored.size());
    EXPECT_EQ(parts.batch.distinct, whole.distinct);
    EXPECT_EQ(parts.batch.case_index, 2);
    for (std::size_t i = 0; i < whole.scored.size(); ++i) {
        const Scored& a = parts.batch.scored[i];
        const Scored& b = whole.scored[i];
        EXPECT_EQ(genome_to_text(a.genome), genome_to_text(b.genome)) << i;
        EXPECT_EQ(a.repeat, b.repeat) << i;
        EXPECT_EQ(a.accepted, b.accepted) << i;
        EXPECT_DOUBLE_EQ(a.speedup, b.speedup) << i;
        EXPECT_EQ(a.result.status, b.result.status) << i;
    }
    // Said once, 10 s after the start line; the third part, a repeat of the first genome, took no time.
    EXPECT_EQ(heard, (std::vector<std::string>{"generation 1/5: 19 of 20 variants evaluated in 14.0 s; 986 s of the search left"}));
}

TEST(GenerationParts, TheDeadlineStopsAGenerationBetweenPartsAndSaysHowFarItGot) {
    const Grammar grammar = testing::small_grammar();
    PartsClockEvaluator evaluator;
    evaluator.fallback = testing::ok_in(1.1);
    evaluator.seconds_a_variant = 2;
    std::vector<Genome> genomes;
    for (const char* text : {"BLOCK=32", "BLOCK=128", "ROWS=1", "ROWS=2", "ROWS=3", "FAST=1", "<_k.cu_10>", "<_k.cu_11>",
                             "<_k.cu_12>", "<_k.cu_13>", "<_k.cu_14>", "<_k.cu_15>", "BLOCK=32 ROWS=2", "BLOCK=128 ROWS=1",
                             "BLOCK=32 FAST=1", "ROWS=3 FAST=1"})
        genomes.push_back(parse_genome(text));
    std::vector<std::string> heard;
    const Deadline deadline([&] { return evaluator.now; }, 27);
    const GenerationParts parts = evaluate_in_parts(genomes, 0, grammar, parts_evaluate(evaluator, grammar), deadline, -1,
                                                    "generation 1", [&](const std::string& line) { heard.push_back(line); });
    // 8 variants (16 s), then the 5 that 10 s holds (11 s were left), then none fits the 1 s left.
    EXPECT_EQ(evaluator.sent, (std::vector<std::size_t>{8, 5}));
    EXPECT_TRUE(parts.stopped());
    EXPECT_EQ(parts.batch.scored.size(), 13u);
    EXPECT_EQ(parts.planned, 16u);
    EXPECT_DOUBLE_EQ(parts.seconds, 26);
    EXPECT_DOUBLE_EQ(parts.last_part_seconds, 10);
    EXPECT_EQ(heard, (std::vector<std::string>{"generation 1: 8 of 16 variants evaluated in 16.0 s; 11 s of the search left",
                                               "generation 1: 13 of 16 variants evaluated in 26.0 s; 1 s of the search left"}));

    // Measured before at 2 s a genome: the first part is what fits, 10 s at most.
    PartsClockEvaluator measured;
    measured.fallback = evaluator.fallback;
    measured.seconds_a_variant = 2;
    const GenerationParts known = evaluate_in_parts(genomes, 0, grammar, parts_evaluate(measured, grammar),
                                                    Deadline([&] { return measured.now; }, 7), 2, "generation 4", nullptr);
    EXPECT_EQ(measured.sent, (std::vector<std::size_t>{3}));
    EXPECT_EQ(known.batch.scored.size(), 3u);
}

TEST(GenerationParts, TheStartLineSaysWhatTheGenerationWillCost) {
    const Deadline none;
    EXPECT_EQ(generation_start_line("generation 1/5", 40, -1, none, false),
              "generation 1/5: evaluating 40 variants (time per variant not measured yet)");
    const Deadline fifty([] { return 10.0; }, 60);
    EXPECT_EQ(generation_start_line("generation 1", 40, -1, fifty, true),
              "generation 1: evaluating 40 variants (time per variant not measured yet: the first 8 measure it; 50 s "
              "of the search left)");
    EXPECT_EQ(generation_start_line("generation 3", 40, 0.3, fifty, false),
              "generation 3: evaluating 40 variants (about 12 s at 0.30 s each; 50 s of the search left)");
    EXPECT_EQ(generation_start_line("generation 9", 400, 0.3, fifty, true),
              "generation 9: evaluating 400 variants (about 120 s at 0.30 s each; 50 s of the search left: in parts, "
              "until the time limit)");
}

// A fake landscape whose every variant "takes" `seconds_a_variant` on a fake clock.
class SlowFakeEvaluator : public FakeEvaluator {
public:
    SlowFakeEvaluator(const Grammar& grammar, FakeLandscapeOptions options, double seconds_a_variant)
        : FakeEvaluator(grammar, std::move(options)), seconds_a_variant_(seconds_a_variant) {}
    double now = 0;
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        now += seconds_a_variant_ * static_cast<double>(variants.size());
        return FakeEvaluator::evaluate(variants, case_index);
    }

private:
    double seconds_a_variant_;
};

FakeLandscapeOptions parts_landscape() {
    FakeLandscapeOptions options;
    options.random_effects = false;
    options.noise = 0.002;
    options.cases = 1;  // no other case to check the best on; its speed is measured again if time allows
    options.declared["BLOCK=128"] = FakeEffect::time(0.6);
    options.declared["<_k.cu_12>"] = FakeEffect::time(0.7);
    options.declared["ROWS=1"] = FakeEffect::time(0.8);
    options.declared["<_k.cu_11>"] = FakeEffect::compile_error();
    return options;
}

EvolveOptions parts_options() {
    EvolveOptions options;
    options.population = 40;
    options.seed = 42;
    options.pre_tune = false;
    options.post_tune = false;
    options.minimise_options.repeats = 1;
    return options;
}

// The sample program's case on a fake clock: 40 variants at 2 s each, 30 s in all. Before, the
// first generation ran whole, to second 80, and the summary said only "time limit".
TEST(GenerationParts, AFirstGenerationOfSlowVariantsStopsAtTheLimitAndKeepsTheBestSoFar) {
    const Grammar grammar = testing::small_grammar();
    SlowFakeEvaluator slow(grammar, parts_landscape(), 2);
    EvolveOptions options = parts_options();
    options.generations = kGenerationsUntilTimeLimit;
    options.time_limit_s = 30;
    EvolveHooks hooks;
    hooks.clock = [&slow] { return slow.now; };
    std::vector<std::string> heard;
    hooks.progress = [&heard](const std::string& line) { heard.push_back(line); };
    const fs::path dir = test::fresh_temp_dir("gi-generation-parts-slow");
    const RunRecord record = evolve(grammar, slow, options, dir, OutMode::Fresh, hooks);
    fs::remove_all(dir);

    // The search has until second 25.5 (15% is held back for confirming the best and minimising):
    // the first part, 8 variants (16 s, fewer when some are the same program), measures the time
    // one takes; then what fits. Measuring the best again (12 s) does not fit what is left for it.
    std::smatch stop;
    ASSERT_TRUE(std::regex_match(record.stop_reason, stop,
                                 std::regex("time limit \\(generation 1 stopped after ([0-9]+) of 40 variants\\)")))
        << record.stop_reason;
    const std::size_t evaluated = std::stoul(stop[1]);
    EXPECT_GE(evaluated, 9u);
    EXPECT_LT(evaluated, 40u);
    ASSERT_EQ(record.generations.size(), 1u);
    EXPECT_EQ(record.generations[0].individuals.size(), evaluated);
    EXPECT_LE(record.search_seconds, 25.5) << "parts are sized to end by the search's deadline";
    EXPECT_LE(record.wall_seconds, 30.0 + 1.0);
    EXPECT_EQ(heard.front(),
              "generation 1: evaluating 40 variants (time per variant not measured yet: the first 8 measure it; 26 s "
              "of the search left)");
    bool said_where_it_was = false;
    for (const std::string& line : heard)
        said_where_it_was |= std::regex_match(line, std::regex("generation 1: [0-9]+ of 40 variants evaluated in 1[0-9].0 s; "
                                                               "[0-9]+ s of the search left"));
    EXPECT_TRUE(said_where_it_was) << "the first part took 10 s or more";
    EXPECT_NE(std::find(heard.begin(), heard.end(),
                        "time limit: the search stopped in generation 1 after " + std::to_string(evaluated) +
                            " of 40 variants; best so far " + fixed(record.best.speedup, 3) + "x"),
              heard.end());
    EXPECT_NE(run_summary(record).find("stopped by time limit (generation 1 stopped after"), std::string::npos)
        << run_summary(record);

    // The variants evaluated are the first of the generation a run without a limit evaluates whole,
    // measured the same; the best among them is the run's, and minimisation starts from it.
    SlowFakeEvaluator unhurried(grammar, parts_landscape(), 2);
    EvolveOptions one = parts_options();
    one.generations = 1;
    one.minimise = false;
    const fs::path whole_dir = test::fresh_temp_dir("gi-generation-parts-whole");
    const RunRecord whole = evolve(grammar, unhurried, one, whole_dir, OutMode::Fresh);
    fs::remove_all(whole_dir);
    ASSERT_EQ(whole.generations[0].individuals.size(), 40u);
    const IndividualRecord* best = nullptr;
    for (std::size_t i = 0; i < evaluated; ++i) {
        const IndividualRecord& individual = whole.generations[0].individuals[i];
        EXPECT_TRUE(record.generations[0].individuals[i] == individual) << i << ": " << individual.genome;
        if (individual.accepted && (best == nullptr || individual.speedup > best->speedup)) best = &individual;
    }
    ASSERT_NE(best, nullptr) << "seed 42 makes a faster variant among the first " << evaluated;
    ASSERT_TRUE(record.best.found);
    EXPECT_EQ(record.best.genome, best->genome);
    EXPECT_DOUBLE_EQ(record.best.speedup, best->speedup);
    EXPECT_EQ(record.best.confirm_note, "speed not confirmed: the time limit came before any candidate was measured again");
    EXPECT_EQ(record.minimise.before, best->genome);
}

// With a time limit that every generation ends within, the first generation is still evaluated in
// parts (its time is not known yet), and the run is the one made without a limit.
TEST(GenerationParts, ARunWhoseGenerationsAllFitIsTheRunWithoutALimit) {
    const Grammar grammar = testing::small_grammar();
    EvolveOptions options = parts_options();
    options.generations = 3;
    options.minimise_options.repeats = 3;
    SlowFakeEvaluator unlimited(grammar, parts_landscape(), 0.01);
    const fs::path a = test::fresh_temp_dir("gi-generation-parts-unlimited");
    const RunRecord plain = evolve(grammar, unlimited, options, a, OutMode::Fresh);
    fs::remove_all(a);

    SlowFakeEvaluator limited(grammar, parts_landscape(), 0.01);
    options.time_limit_s = 1000;
    EvolveHooks hooks;
    hooks.clock = [&limited] { return limited.now; };
    const fs::path b = test::fresh_temp_dir("gi-generation-parts-limited");
    const RunRecord record = evolve(grammar, limited, options, b, OutMode::Fresh, hooks);
    fs::remove_all(b);

    EXPECT_EQ(limited.calls(), unlimited.calls() + 1) << "the first generation in two parts: 8 variants, then the rest";
    EXPECT_EQ(limited.variants_seen(), unlimited.variants_seen());
    ASSERT_EQ(record.generations.size(), plain.generations.size());
    for (std::size_t i = 0; i < plain.generations.size(); ++i)
        EXPECT_TRUE(record.generations[i] == plain.generations[i]) << "generation " << i;
    EXPECT_EQ(record.stop_reason, "generations");
    EXPECT_EQ(record.best.genome, plain.best.genome);
    EXPECT_EQ(record.final_genome, plain.final_genome);
}

}  // namespace
}  // namespace gi
