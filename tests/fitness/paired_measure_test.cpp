#include "fitness/paired_measure.hpp"

#include <gtest/gtest.h>

#include "../support/search_test_support.hpp"

namespace gi {
namespace {

// Evaluations of 10 repetitions with a 10% spread, the same every batch (no drift): the medians'
// uncertainty falls as 1 / sqrt(batches), so only the rounds decide.
EvalResult ten_percent_spread(double ms) {
    EvalResult result;
    result.time = Timing{ms, 0.1 * ms, 10};
    return result;
}

struct PairedMeasureRounds : ::testing::Test {
    Grammar grammar = testing::small_grammar();
    testing::ScriptedEvaluator scripted;
    Genome reference = parse_genome("<_k.cu_10> <_k.cu_11>");
    Genome candidate = parse_genome("<_k.cu_10>");

    PairedMeasure measure(double candidate_ms, const Deadline& deadline = {}) {
        scripted.results[genome_to_text(reference)] = ten_percent_spread(1.0);
        scripted.results[genome_to_text(candidate)] = ten_percent_spread(candidate_ms);
        return measure_pair_until_decided(reference, candidate, grammar, scripted, 0, 3, 3.0, SlowerSide::Candidate,
                                          deadline);
    }
};

TEST_F(PairedMeasureRounds, AClearAnswerTakesOneRound) {
    EXPECT_EQ(measure(1.2).rounds, 1);   // 20% slower: 6 uncertainties
    EXPECT_EQ(measure(0.9).rounds, 1);   // faster: not slower at all
    EXPECT_EQ(measure(1.01).rounds, 1);  // 1% slower: within one uncertainty, noise
    EXPECT_EQ(scripted.calls, 9);
}

TEST_F(PairedMeasureRounds, AnUndecidedLossIsMeasuredAgainUntilItIsDecided) {
    // 9% slower: 2.7 uncertainties after 3 batches, 3.9 after 6.
    const PairedMeasure m = measure(1.09);
    EXPECT_EQ(m.rounds, 2);
    EXPECT_EQ(m.candidate.batches.size(), 6u);
    EXPECT_EQ(m.reference.batches.size(), 6u);
    EXPECT_EQ(scripted.calls, 6);
}

TEST_F(PairedMeasureRounds, NoMoreThanTheRoundsAllowed) {
    // 4% slower: 1.2, 1.7, 2.1, 2.4 uncertainties after 1-4 rounds: still undecided, and stopped.
    const PairedMeasure m = measure(1.04);
    EXPECT_EQ(m.rounds, kMaxPairRounds);
    EXPECT_EQ(scripted.calls, 3 * kMaxPairRounds);
}

TEST_F(PairedMeasureRounds, NoRoundStartsThatTheDeadlineCannotHold) {
    // Every reading of the clock is a second later: the first round "took" a second and the
    // deadline is passed after it.
    double t = 0;
    const PairedMeasure m = measure(1.09, Deadline([&t] { return t += 1; }, 2.5));
    EXPECT_EQ(m.rounds, 1);
    EXPECT_EQ(scripted.calls, 3);
}

TEST_F(PairedMeasureRounds, AFailureDecidesAtOnce) {
    scripted.results[genome_to_text(reference)] = ten_percent_spread(1.0);
    EvalResult crash;
    crash.status = EvalStatus::Crash;
    scripted.results[genome_to_text(candidate)] = crash;
    const PairedMeasure m = measure_pair_until_decided(reference, candidate, grammar, scripted, 0, 3, 3.0,
                                                       SlowerSide::Candidate, Deadline{});
    EXPECT_EQ(m.rounds, 1);
    EXPECT_EQ(m.candidate.status, EvalStatus::Crash);
}

TEST_F(PairedMeasureRounds, TheQuestionCanBeAskedOfTheReference) {
    // Confirming the best asks whether the original (the reference) is slower than the candidate.
    scripted.results[genome_to_text(reference)] = ten_percent_spread(1.09);
    scripted.results[genome_to_text(candidate)] = ten_percent_spread(1.0);
    EXPECT_EQ(measure_pair_until_decided(reference, candidate, grammar, scripted, 0, 3, 3.0, SlowerSide::Reference,
                                         Deadline{}).rounds,
              2);
    EXPECT_EQ(measure_pair_until_decided(reference, candidate, grammar, scripted, 0, 3, 3.0, SlowerSide::Candidate,
                                         Deadline{}).rounds,
              1);
}

}  // namespace
}  // namespace gi
