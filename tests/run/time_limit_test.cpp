// Issue 40, item 6: --time-limit is the budget of the whole run. Without --generations the search
// runs until the time is spent (or stagnates, saying so); every phase has a deadline and stops at a
// safe point when it passes, and a phase that ends past its deadline is named.
#include "run/time_budget.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <regex>
#include <set>

#include "../support/gi_tool_run.hpp"
#include "../support/search_test_support.hpp"
#include "evaluate/variant_checker.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "run/evolve.hpp"
#include "run/final_check.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

TEST(TimeBudget, EachPhaseHasItsShareOfTheLimit) {
    TimeBudget b;
    b.limit_s = 100;
    // The later phases' weights (confirming 1, minimising 2, post-tuning 1, final checks 1) at 5% each.
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::Search, 0), 75);
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::PreTune, 0), 15);       // 20% of the time to the search's end
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::PreTune, 25), 35);      // the cases took 25 s: 20% of 50
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::Confirm, 75), 80);      // 1 of 5 weights of the 25 s left
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::Minimise, 80), 90);     // 2 of 4 of 20
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::PostTune, 90), 95);     // 1 of 2 of 10
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::FinalCheck, 95), 100);  // the rest
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::Confirm, 20), 36);      // a search that stagnated early leaves more
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::FinalCheck, 130), 130); // already past: stop at once

    TimeBudget search_only = b;
    search_only.confirm = search_only.minimise = search_only.post_tune = search_only.final_check = false;
    EXPECT_DOUBLE_EQ(search_only.deadline(RunPhase::Search, 0), 100);
    TimeBudget sweep = b;  // --generations 0: no search, so nothing to confirm or minimise
    sweep.search = false;
    EXPECT_DOUBLE_EQ(sweep.deadline(RunPhase::PreTune, 0), 90);

    EXPECT_TRUE(std::isinf(TimeBudget{}.deadline(RunPhase::Search, 5)));
    EXPECT_DOUBLE_EQ(b.margin_s(), 10);
    TimeBudget long_run;
    long_run.limit_s = 300;
    EXPECT_DOUBLE_EQ(long_run.margin_s(), 30);
    long_run.limit_s = 3600;
    EXPECT_DOUBLE_EQ(long_run.margin_s(), 60) << "the CMake flow stops evolve a minute after its limit";
}

TEST(TimeBudget, APhaseThatEndsPastItsDeadlineIsNamed) {
    TimeBudget b;
    b.limit_s = 100;
    EXPECT_EQ(b.overrun(RunPhase::PreTune, 15, 15.5, "x"), "");  // within a second
    EXPECT_EQ(b.overrun(RunPhase::PreTune, 15, 23.25, "a batch"),
              "pre-tuning ran 8.2 s past its deadline (second 15 of the 100 s time limit): a batch");
    EXPECT_EQ(TimeBudget{}.overrun(RunPhase::Search, 1, 50, ""), "");  // no limit, no deadline
}

// A phase that starts after the limit because one before it ran over is charged only its own
// time: a post-tuning that had nothing to tune was said to have "ran 9.1 s past its deadline",
// the time confirming the best had run over.
TEST(TimeBudget, APhaseThatStartsPastTheLimitIsChargedOnlyItsOwnTime) {
    TimeBudget b;
    b.limit_s = 12;
    b.post_tune = false;  // nothing to tune: no weight, so its deadline was the limit itself
    b.final_check = false;
    const double started = 21.1;
    EXPECT_DOUBLE_EQ(b.deadline(RunPhase::PostTune, started), started);
    EXPECT_EQ(b.overrun(RunPhase::PostTune, b.deadline(RunPhase::PostTune, started), started + 0.1, "x"), "");
    EXPECT_EQ(b.overrun(RunPhase::PostTune, b.deadline(RunPhase::PostTune, started), started + 3, "a batch"),
              "post-tuning ran 3.0 s past its deadline (second 21 of the 12 s time limit): a batch");
    TimeBudget checked = b;
    checked.final_check = true;
    EXPECT_EQ(checked.overrun(RunPhase::FinalCheck, checked.deadline(RunPhase::FinalCheck, started), started + 0.5, ""), "");
}

GenerationRecord stagnation_generation(double speedup) {
    GenerationRecord g;
    g.best_speedup = speedup;
    return g;
}

TEST(Stagnation, CountsTheGenerationsSinceTheBestLastGainedOnePercent) {
    EXPECT_EQ(generations_without_gain({}), 0);
    EXPECT_EQ(generations_without_gain({stagnation_generation(0), stagnation_generation(0), stagnation_generation(0)}), 3);
    EXPECT_EQ(generations_without_gain({stagnation_generation(1.2), stagnation_generation(0)}), 1);
    // 1.205 is not 1% better than 1.2; 1.22 is.
    EXPECT_EQ(generations_without_gain({stagnation_generation(1.2), stagnation_generation(1.205), stagnation_generation(1.1)}), 2);
    EXPECT_EQ(generations_without_gain({stagnation_generation(1.2), stagnation_generation(1.205), stagnation_generation(1.22)}), 0);
    // Gains of under 1% a generation still add up to progress against the best when it was last made.
    EXPECT_EQ(generations_without_gain({stagnation_generation(1.2), stagnation_generation(1.208), stagnation_generation(1.216)}), 0);
}

FakeLandscapeOptions time_limit_flat_landscape(int delay_ms) {
    FakeLandscapeOptions options;
    options.random_effects = false;  // nothing is faster: nothing accepted
    options.delay_ms = delay_ms;
    return options;
}

double time_limit_seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(TimeLimit, WithoutGenerationsTheSearchRunsUntilTheTimeIsSpent) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, time_limit_flat_landscape(0));
    EvolveOptions options;
    options.population = 4;
    options.generations = kGenerationsUntilTimeLimit;
    options.time_limit_s = 10;
    options.pre_tune = false;
    double now = 0;
    EvolveHooks hooks;
    hooks.clock = [&now] { return now; };
    hooks.after_checkpoint = [&now](int) { now += 0.125; };  // each generation "takes" 0.125 s
    const fs::path dir = test::fresh_temp_dir("gi-time-limit-until");
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh, hooks);
    // The search ends by second 8: 20% is held back for confirming, minimising and post-tuning.
    EXPECT_EQ(record.generations.size(), 64u) << "the former default stopped the search at 50";
    EXPECT_EQ(record.stop_reason, "time limit");
    bool until = false;
    for (const auto& [name, value] : record.settings) until |= name == "generations" && value == "until the time limit";
    EXPECT_TRUE(until);
    fs::remove_all(dir);
}

TEST(TimeLimit, ASearchWithoutProgressStopsByTheStagnationRuleAndSaysSo) {
    const Grammar grammar = testing::small_grammar();
    FakeEvaluator fake(grammar, time_limit_flat_landscape(0));
    EvolveOptions options;
    options.population = 4;
    options.generations = kGenerationsUntilTimeLimit;
    options.time_limit_s = 600;
    options.stagnation = 6;
    options.pre_tune = false;
    const fs::path dir = test::fresh_temp_dir("gi-time-limit-stagnation");
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh);
    EXPECT_EQ(record.generations.size(), 6u);
    EXPECT_EQ(record.stop_reason, "stagnation: no best 1% faster than the one before it in the last 6 generations");
    EXPECT_NE(run_summary(record).find("generations:         6 (stopped by stagnation"), std::string::npos)
        << run_summary(record);
    fs::remove_all(dir);
}

TEST(TimeLimit, ASearchWithoutGenerationsNeedsATimeLimit) {
    EvolveOptions options;
    options.generations = kGenerationsUntilTimeLimit;
    EXPECT_THROW(check_evolve_options(options), UsageError);
    options.time_limit_s = 10;
    EXPECT_NO_THROW(check_evolve_options(options));
}

// A grammar of 100 tuning points (A x B), for sweeps that cannot finish in their share.
Grammar time_limit_wide_grammar() {
    std::vector<std::string> ten;
    for (int i = 1; i <= 10; ++i) ten.push_back(std::to_string(i));
    return testing::grammar_of({testing::make_gene("A", GeneKind::Param, ten, "1", true),
                                testing::make_gene("B", GeneKind::Param, ten, "1", true)},
                               {testing::make_rule("_k.cu_10", RuleKind::Statement, "x += n;", 10)});
}

// A slow evaluator: pre-tuning's 99 points would take far longer than its share of the limit.
TEST(TimeLimit, PreTuningIsStoppedAtItsDeadlineAndTheSummaryNamesIt) {
    const Grammar grammar = time_limit_wide_grammar();
    FakeEvaluator fake(grammar, time_limit_flat_landscape(400));
    EvolveOptions options;
    options.population = 4;
    options.generations = 2;
    options.time_limit_s = 4;
    const fs::path dir = test::fresh_temp_dir("gi-time-limit-pretune");
    const auto start = std::chrono::steady_clock::now();
    const RunRecord record = evolve(grammar, fake, options, dir, OutMode::Fresh);
    const double took = time_limit_seconds_since(start);
    ASSERT_TRUE(record.pre_tune.ran);
    EXPECT_LT(record.pre_tune.points.size(), 99u);
    EXPECT_NE(record.pre_tune.note.find("stopped at the time limit after " + std::to_string(record.pre_tune.points.size()) +
                                        " of 99 points"),
              std::string::npos)
        << record.pre_tune.note;
    // Its share: 20% of the time to the search's end (4 s less 20% for the later phases).
    EXPECT_LT(record.pre_tune_seconds, 0.64 + 0.45) << "one evaluation (0.4 s) past its deadline at most";
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("time limit:          4 s, margin 10 s: the run took"), std::string::npos) << summary;
    EXPECT_NE(summary.find("\n  pre-tuning: "), std::string::npos) << summary;
    EXPECT_LE(took, options.time_limit_s + 1.0);
    fs::remove_all(dir);
}

// Each evaluation takes 10 s on a fake clock: pre-tuning's first batch cannot end by its deadline,
// and the watchdog says so, naming the phase, in its note and in the summary.
TEST(TimeLimit, APhaseThatRunsPastItsDeadlineIsNamedInTheRecord) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator slow;
    double now = 0;
    slow.before_call = [&now](int) { now += 10; };
    slow.fallback = testing::ok_in(1.0);
    EvolveOptions options;
    options.population = 4;
    options.generations = 3;
    options.time_limit_s = 20;
    EvolveHooks hooks;
    hooks.clock = [&now] { return now; };
    std::vector<std::string> heard;
    hooks.progress = [&heard](const std::string& line) { heard.push_back(line); };
    const fs::path dir = test::fresh_temp_dir("gi-time-limit-overrun");
    const RunRecord record = evolve(grammar, slow, options, dir, OutMode::Fresh, hooks);
    // Pre-tuning's deadline: 20% of the 16 s to the search's end.
    EXPECT_NE(record.pre_tune.note.find("pre-tuning ran 6.8 s past its deadline (second 3 of the 20 s time limit)"),
              std::string::npos)
        << record.pre_tune.note;
    EXPECT_NE(std::find(heard.begin(), heard.end(),
                        "time limit: pre-tuning ran 6.8 s past its deadline (second 3 of the 20 s time limit): a batch "
                        "of points cannot be interrupted"),
              heard.end());
    // The search started at 10 s, before its end at 16, and ran one generation; post-tuning found
    // its deadline passed and measured nothing.
    EXPECT_EQ(record.generations.size(), 1u);
    EXPECT_NE(record.post_tune.note.find("stopped at the time limit after 0 of 11 points"), std::string::npos)
        << record.post_tune.note;
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("\n  pre-tuning: "), std::string::npos) << summary;
    EXPECT_NE(summary.find("\n  post-tuning: "), std::string::npos) << summary;
    fs::remove_all(dir);
}

// A checker whose sanitizer rejects chosen genomes and whose every check takes 5 s on a fake clock.
class TimedFinalChecker : public testing::ScriptedEvaluator, public testing::OneByOneChecker {
public:
    VariantChecker* checker() override { return this; }
    std::set<std::string> racy;
    std::vector<std::string> checked;
    double now = 0;
    EvalResult sanitize_one(const Variant& variant, int) override {
        now += 5;
        checked.push_back(genome_to_text(variant.genome));
        EvalResult result;
        if (racy.count(genome_to_text(variant.genome))) result.status = EvalStatus::SanitizerError;
        return result;
    }
    ValidationReport validate(const Variant&) override {
        ValidationReport report;
        report.cases.push_back(CaseValidation{"held/0", true, EvalStatus::Ok, 10, 0, 0.0, 0.0, ""});
        report.elements = 10;
        return report;
    }
};

TEST(TimeLimit, FinalChecksCheckTheFirstCandidateAndStopAtTheDeadline) {
    const Grammar grammar = testing::small_grammar();
    TimedFinalChecker checker;
    checker.racy = {"ROWS=2 <_k.cu_10>"};
    const Deadline deadline([&checker] { return checker.now; }, 3);
    const FinalChoice choice = choose_final_genome(
        {parse_genome("ROWS=2 <_k.cu_10>"), parse_genome("ROWS=2"), parse_genome("BLOCK=32"), Genome{}}, checker,
        grammar, 0, nullptr, deadline);
    EXPECT_EQ(checker.checked, std::vector<std::string>{"ROWS=2 <_k.cu_10>"}) << "the first candidate is always checked";
    EXPECT_TRUE(choice.genome.empty());
    EXPECT_NE(choice.check.note.find("final checks stopped at the time limit after 1 of 3 candidates, so the original "
                                     "kernel ships"),
              std::string::npos)
        << choice.check.note;
    // Without a deadline the next candidate is checked and kept.
    TimedFinalChecker unhurried;
    unhurried.racy = checker.racy;
    const FinalChoice kept = choose_final_genome({parse_genome("ROWS=2 <_k.cu_10>"), parse_genome("ROWS=2"), Genome{}},
                                                 unhurried, grammar, 0, nullptr);
    EXPECT_EQ(genome_to_text(kept.genome), "ROWS=2");
}

// The command as a user runs it: before issue 40, `--time-limit` without `--generations` stopped at
// the default of 50 generations long before the time was spent.
TEST(TimeLimit, EvolveWithATimeLimitAndNoGenerationsUsesTheTime) {
    const fs::path dir = test::fresh_temp_dir("gi-time-limit-cli");
    const std::string kernel = std::string(GI_TEST_DATA_DIR) + "/grammar/stereo_like.cu";
    const auto start = std::chrono::steady_clock::now();
    const test::ToolRun run = test::run_gi_tool("evolve '" + kernel + "' --function stereoKernel --evaluator fake "
                                                "--fake delay-ms=5 --population 4 --time-limit 6 --quiet --out '" +
                                                (dir / "run").string() + "'");
    const double took = time_limit_seconds_since(start);
    ASSERT_EQ(run.status, 0) << run.output;
    std::smatch generations;
    ASSERT_TRUE(std::regex_search(run.output, generations, std::regex("generations: +([0-9]+) \\(stopped by ([a-z ]+)")))
        << run.output;
    EXPECT_GT(std::stoi(generations[1]), 50) << run.output;
    EXPECT_LE(took, 6 + 10.0) << "the documented margin: 10 s";
    EXPECT_LE(took, 6 + 2.0) << run.output;
    EXPECT_NE(run.output.find("time limit:          6 s, margin 10 s: the run took"), std::string::npos) << run.output;
    fs::remove_all(dir);
}

}  // namespace
}  // namespace gi
