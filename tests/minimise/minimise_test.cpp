#include "minimise/minimise.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "../support/search_test_support.hpp"
#include "evaluate/fake_evaluator.hpp"

namespace gi {
namespace {

using testing::ok_in;

TEST(Minimise, RemovesEveryUselessItemAndKeepsTheUsefulOnes) {
    const Grammar grammar = testing::small_grammar();
    FakeLandscapeOptions landscape;
    landscape.random_effects = false;
    landscape.noise = 0.005;
    landscape.declared["BLOCK=128"] = FakeEffect::time(0.7);
    landscape.declared["<_k.cu_11>"] = FakeEffect::time(0.8);
    landscape.declared["<_k.cu_13>+<_k.cu_10>"] = FakeEffect::time(0.85);
    landscape.declared["<_k.cu_14>"] = FakeEffect::time(1.003);  // costs less than the noise
    FakeEvaluator fake(grammar, landscape);
    const Genome evolved = parse_genome(
        "BLOCK=128 ROWS=2 <_k.cu_10> <_k.cu_11> <IF_k.cu_20><IF_k.cu_21> <_k.cu_13>+<_k.cu_10> <_k.cu_14> "
        "<pragma_k.cu_30><pragma_K4> <_k.cu_15>");
    const MinimiseResult result = minimise(evolved, grammar, fake, 2, MinimiseOptions{});
    EXPECT_TRUE(result.ran);
    EXPECT_EQ(result.after, "BLOCK=128 <_k.cu_11> <_k.cu_13>+<_k.cu_10>");
    ASSERT_EQ(result.steps.size(), 9u);
    EXPECT_EQ(result.steps[0].item, "BLOCK=128");
    EXPECT_FALSE(result.steps[0].removed);
    EXPECT_TRUE(result.steps[1].removed);
    EXPECT_EQ(result.steps[1].item, "ROWS=2");
    // Each comparison evaluated `repeats` (3) times a round, and another round only while its loss
    // was between 1 and k x the medians' uncertainty (the fake's evaluations: 5 repetitions).
    long long batches = 0;
    for (const MinimiseStep& step : result.steps) {
        EXPECT_EQ(step.reference.repetitions % 15, 0) << step.item;
        batches += step.reference.repetitions / 5;
    }
    EXPECT_EQ(fake.calls(), batches);
    EXPECT_LT(fake.calls(), 9 * 3 * kMaxPairRounds);
}

TEST(Minimise, KeepsItemsWhoseRemovalBreaksTheVariantOrAddsError) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    const Genome evolved = parse_genome("<_k.cu_10> <_k.cu_11> <_k.cu_12>");
    scripted.results["<_k.cu_10> <_k.cu_11> <_k.cu_12>"] = ok_in(0.5, 0.01, 0.25);
    EvalResult broken;
    broken.status = EvalStatus::Crash;
    scripted.results["<_k.cu_11> <_k.cu_12>"] = broken;                  // removing _10 crashes
    scripted.results["<_k.cu_10> <_k.cu_12>"] = ok_in(0.5, 0.01, 0.5);   // removing _11 adds error
    scripted.results["<_k.cu_10> <_k.cu_11>"] = ok_in(0.45, 0.01, 0.0);  // removing _12 is better
    const MinimiseResult result = minimise(evolved, grammar, scripted, 0, MinimiseOptions{3, 1});
    EXPECT_EQ(result.after, "<_k.cu_10> <_k.cu_11>");
    // After _12 went, the two kept for failing and adding error are tried again (and stay: the
    // variants without them were not measured faster).
    ASSERT_EQ(result.steps.size(), 5u);
    EXPECT_NE(result.steps[0].reason.find("fails"), std::string::npos);
    EXPECT_EQ(result.steps[0].status, EvalStatus::Crash);
    EXPECT_NE(result.steps[1].reason.find("error"), std::string::npos);
    EXPECT_TRUE(result.steps[2].removed);
    EXPECT_EQ(result.steps[3].item, "<_k.cu_10>");
    EXPECT_EQ(result.steps[3].pass, 2);
    EXPECT_FALSE(result.steps[3].removed);
    EXPECT_EQ(result.steps[4].item, "<_k.cu_11>");
    EXPECT_FALSE(result.steps[4].removed);
}

// Seen on the H100 (final_sum of tests/cmake/two_kernels): "<_k.cu_12>+<_k.cu_11> <_k.cu_11>" copies a
// statement before the next one and deletes the original, which is the original code. The copy
// is kept in the first pass (without it the deletion loses the statement), then the deletion goes;
// the lone copy, a duplicated statement, must not be what ships.
TEST(Minimise, AnItemKeptOnlyForAnotherThatWasRemovedGoesInTheNextPass) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    scripted.results["<_k.cu_12>+<_k.cu_11> <_k.cu_11>"] = ok_in(1.0, 0.01);
    scripted.results["<_k.cu_11>"] = ok_in(1.0, 0.01, 1.0);           // the statement lost: wrong
    scripted.results["<_k.cu_12>+<_k.cu_11>"] = ok_in(1.0, 0.01);      // duplicated: same
    scripted.results[""] = ok_in(1.0, 0.01);                           // the original: same
    const MinimiseResult result =
        minimise(parse_genome("<_k.cu_12>+<_k.cu_11> <_k.cu_11>"), grammar, scripted, 0, MinimiseOptions{3, 1});
    EXPECT_EQ(result.after, "");
    ASSERT_EQ(result.steps.size(), 3u);
    EXPECT_FALSE(result.steps[0].removed);
    EXPECT_EQ(result.steps[0].reason, "kept: without it the error grows");
    EXPECT_TRUE(result.steps[1].removed);
    EXPECT_EQ(result.steps[2].item, "<_k.cu_12>+<_k.cu_11>");
    EXPECT_EQ(result.steps[2].pass, 2);
    EXPECT_TRUE(result.steps[2].removed);
}

TEST(Minimise, ComparesWithTheEvolvedGenomeSoSmallLossesCannotAccumulate) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    // Each removal alone costs 0.02 ms (inside 3 x noise of 0.0141 x 3 = 0.042); both cost 0.05.
    scripted.results["<_k.cu_10> <_k.cu_11>"] = ok_in(1.00, 0.01);
    scripted.results["<_k.cu_11>"] = ok_in(1.02, 0.01);
    scripted.results[""] = ok_in(1.05, 0.01);
    const MinimiseResult result = minimise(parse_genome("<_k.cu_10> <_k.cu_11>"), grammar, scripted, 0, MinimiseOptions{3, 1});
    EXPECT_EQ(result.after, "<_k.cu_11>");
    EXPECT_TRUE(result.steps[0].removed);
    EXPECT_FALSE(result.steps[1].removed);
}

TEST(Minimise, DoesNotRunWithoutTimingsOrWhenTheEvolvedGenomeFails) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    scripted.times = false;
    MinimiseResult result = minimise(parse_genome("<_k.cu_10>"), grammar, scripted, 0, MinimiseOptions{});
    EXPECT_FALSE(result.ran);
    EXPECT_EQ(result.after, "<_k.cu_10>");
    scripted.times = true;
    scripted.fallback.status = EvalStatus::Timeout;
    result = minimise(parse_genome("<_k.cu_10>"), grammar, scripted, 0, MinimiseOptions{});
    EXPECT_FALSE(result.ran);
    EXPECT_NE(result.note.find("fails"), std::string::npos);
    EXPECT_EQ(result.after, "<_k.cu_10>");
    result = minimise(Genome{}, grammar, scripted, 0, MinimiseOptions{});
    EXPECT_FALSE(result.ran);
}

TEST(CombineRepeats, MedianOfMediansWithTheLargerSpread) {
    const Timing a{1.0, 0.01, 5}, b{1.2, 0.01, 5}, c{1.1, 0.02, 5};
    const Timing combined = combine_repeats({a, b, c});
    EXPECT_DOUBLE_EQ(combined.median_ms, 1.1);
    EXPECT_NEAR(combined.spread_ms, 1.4826 * 0.1, 1e-12);  // between-run spread dominates
    EXPECT_EQ(combined.repetitions, 15);
    const Timing steady = combine_repeats({a, a, Timing{1.0, 0.03, 5}});
    EXPECT_DOUBLE_EQ(steady.spread_ms, 0.01);
    EXPECT_FALSE(combine_repeats({a, Timing{}}).valid());
}

// The uncertainty of a median of R evaluations: the larger of the drift between them / sqrt(R)
// and the standard error of a median of all their repetitions (1.2533 x spread / sqrt(n)).
TEST(MedianError, TheLargerOfDriftBetweenEvaluationsAndTheMediansOwnError) {
    // Steady evaluations: 0.1 x 1.2533 / sqrt(30).
    const Timing steady{1.0, 0.1, 10};
    EXPECT_NEAR(median_error({steady, steady, steady}), 0.1 * 1.2533 / std::sqrt(30.0), 1e-12);
    // Drifting ones: 1.4826 x MAD(1.0, 1.2, 1.1) / sqrt(3) = 0.14826 / sqrt(3).
    const Timing a{1.0, 0.01, 10}, b{1.2, 0.01, 10}, c{1.1, 0.01, 10};
    EXPECT_NEAR(median_error({a, b, c}), 1.4826 * 0.1 / std::sqrt(3.0), 1e-12);
    // One evaluation measures no drift: the spread of single samples, as before.
    EXPECT_DOUBLE_EQ(median_error({Timing{1.0, 0.1, 30}}), 0.1);
    // Precise evaluations: at least 0.5% of the median (1% x 1.2533 / sqrt(30) = 0.23% is less),
    // but never beyond the samples' spread (0.3%), so never stricter than comparing samples.
    const Timing precise{1.0, 0.01, 10}, very_precise{1.0, 0.003, 10};
    EXPECT_DOUBLE_EQ(median_error({precise, precise, precise}), 0.005);
    EXPECT_DOUBLE_EQ(median_error({very_precise, very_precise, very_precise}), 0.003);
    EXPECT_TRUE(std::isnan(median_error({a, Timing{}})));
    EXPECT_TRUE(std::isnan(median_error({})));
}

// Seen on the H200 (elimination, 7.7 us): the variant without `restrict=1` was 9% slower,
// measured 3 x 10 times with a spread of about 10% per sample, and the rule that compared the
// samples' spreads (3 x sqrt(0.1^2 + 0.109^2) = 0.44 ms here, a 44% loss) removed it. Compared by
// the medians' uncertainties (0.0229 and 0.0249 ms), a 12% loss is 3.5 of them (kept at the default
// k = 3 in one round); a 9% loss is 2.7, undecided at k = 3, so it is measured again
// (kMaxPairRounds): after a second round of 3 x 10 it is 3.9 and kept; a 0.5% loss is within one
// uncertainty, noise, and settled at once.
TEST(Minimise, ALossOfAFewStandardErrorsOfTheMediansKeepsTheItem) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    const auto timed = [](double ms) {
        EvalResult result;
        result.time = Timing{ms, 0.1 * ms, 10};  // 10 repetitions per evaluation, 10% spread
        return result;
    };
    scripted.results["<_k.cu_10> <_k.cu_11> <_k.cu_12>"] = timed(1.0);
    scripted.results["<_k.cu_11> <_k.cu_12>"] = timed(1.12);   // without _10: 12% slower
    scripted.results["<_k.cu_10> <_k.cu_12>"] = timed(1.09);   // without _11: 9% slower
    scripted.results["<_k.cu_10> <_k.cu_11>"] = timed(1.005);  // without _12: 0.5% slower
    scripted.results["<_k.cu_10>"] = timed(1.095);             // without both (k = 3 removed _11)
    const Genome evolved = parse_genome("<_k.cu_10> <_k.cu_11> <_k.cu_12>");

    const MinimiseResult at_3 = minimise(evolved, grammar, scripted, 0, MinimiseOptions{});
    EXPECT_EQ(at_3.after, "<_k.cu_10> <_k.cu_11>");
    ASSERT_EQ(at_3.steps.size(), 3u);
    EXPECT_FALSE(at_3.steps[0].removed);
    EXPECT_EQ(at_3.steps[0].reason, "kept: without it the variant is slower by more than k x the medians' uncertainty");
    EXPECT_FALSE(at_3.steps[1].removed) << "a 9% loss, measured again, is beyond k = 3";
    EXPECT_EQ(at_3.steps[2].reason, "removed: no loss beyond k x the medians' uncertainty");
    // The record says what was compared: 30 repetitions' medians, and their uncertainties; 60 for
    // the comparison measured again; 30 for the 0.5% loss, noise from the start.
    EXPECT_EQ(at_3.steps[0].candidate.repetitions, 30);
    EXPECT_NEAR(at_3.steps[0].reference_error_ms, 0.1 * 1.2533 / std::sqrt(30.0), 1e-12);
    EXPECT_NEAR(at_3.steps[0].candidate_error_ms, 0.112 * 1.2533 / std::sqrt(30.0), 1e-12);
    EXPECT_EQ(at_3.steps[1].candidate.repetitions, 60);
    EXPECT_NEAR(at_3.steps[1].candidate_error_ms, 0.109 * 1.2533 / std::sqrt(60.0), 1e-12);
    EXPECT_EQ(at_3.steps[2].candidate.repetitions, 30);

    MinimiseOptions k2;
    k2.k = 2;
    const MinimiseResult at_2 = minimise(evolved, grammar, scripted, 0, k2);
    EXPECT_EQ(at_2.after, "<_k.cu_10> <_k.cu_11>");
    ASSERT_EQ(at_2.steps.size(), 3u);
    EXPECT_FALSE(at_2.steps[1].removed) << "a 9% loss, 2.7 standard errors, is beyond k = 2";
    EXPECT_TRUE(at_2.steps[2].removed) << "a 0.5% loss is noise";
}

// With one evaluation per side (--minimise-repeats 1) nothing measures the drift between the
// evolved genome's runs and the candidate's, so the rule falls back to the samples' spread: the
// 12% loss kept above with three evaluations is within noise here; a 60% loss is not.
TEST(Minimise, WithOneEvaluationTheSamplesSpreadIsTheUncertainty) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    const auto timed = [](double ms) {
        EvalResult result;
        result.time = Timing{ms, 0.1 * ms, 30};  // one evaluation of 30 repetitions, 10% spread
        return result;
    };
    scripted.results["<_k.cu_10> <_k.cu_11>"] = timed(1.0);
    scripted.results["<_k.cu_11>"] = timed(1.6);   // without _10: 60% slower
    scripted.results["<_k.cu_10>"] = timed(1.12);  // without _11: 12% slower
    MinimiseOptions once;
    once.repeats = 1;
    const MinimiseResult result = minimise(parse_genome("<_k.cu_10> <_k.cu_11>"), grammar, scripted, 0, once);
    EXPECT_EQ(result.after, "<_k.cu_10>");
    ASSERT_EQ(result.steps.size(), 2u);
    EXPECT_FALSE(result.steps[0].removed);
    EXPECT_TRUE(result.steps[1].removed);
    EXPECT_DOUBLE_EQ(result.steps[1].reference_error_ms, 0.1);
    EXPECT_NEAR(result.steps[1].candidate_error_ms, 0.112, 1e-12);
}

// evolve --time-limit (issue 40): no comparison starts once the deadline has passed, or when one
// as long as the last would end after it; the removals made so far are kept.
TEST(Minimise, AtItsDeadlineItStopsAndKeepsTheRemovalsMadeSoFar) {
    const Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator slow;
    double now = 0;
    slow.before_call = [&now](int) { now += 1; };
    slow.fallback = ok_in(1.0);
    MinimiseOptions options;
    options.repeats = 2;  // a comparison takes 2 s
    options.deadline = Deadline([&now] { return now; }, 5);
    const MinimiseResult result = minimise(parse_genome("ROWS=2 <_k.cu_10> <_k.cu_11> <_k.cu_12>"), grammar, slow, 0, options);
    // Comparisons at 0 and 2 s; at 4 s another 2 s would end past 5.
    ASSERT_EQ(result.steps.size(), 2u);
    EXPECT_TRUE(result.stopped);
    EXPECT_TRUE(result.ran);
    EXPECT_EQ(result.after, "<_k.cu_11> <_k.cu_12>");  // ROWS=2 and <_k.cu_10> cost nothing: removed
    EXPECT_EQ(result.note, "stopped at the time limit after 2 comparisons; the removals made so far are kept");

    MinimiseOptions late;
    late.deadline = Deadline([] { return 10.0; }, 5);
    const MinimiseResult none = minimise(parse_genome("ROWS=2"), grammar, slow, 0, late);
    EXPECT_FALSE(none.ran);
    EXPECT_EQ(none.after, "ROWS=2");
    EXPECT_EQ(none.note, "not run: the time limit left no time for a comparison");
}

}  // namespace
}  // namespace gi
