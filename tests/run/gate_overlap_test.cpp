// The gate run alongside evaluation (issue 19): evolve evaluates its guess at the next generation
// while the checks run on the checker's thread, keeps it when it is the next generation, throws it
// away otherwise, and the run is the one evolve makes without the overlap.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <future>
#include <initializer_list>
#include <mutex>
#include <optional>
#include <set>

#include <unistd.h>

#include "run/evolve.hpp"
#include "run/gate.hpp"
#include "run/search_history.hpp"
#include "search/anneal_pool.hpp"
#include "../support/search_test_support.hpp"

namespace gi {
namespace {

// A checker whose checks run on a thread of their own, as the cuda evaluator's do, failing the
// sanitizer for chosen genomes. evaluate() "takes" 3 s on the fake clock (on the caller's thread),
// or seconds_a_variant a variant when that is set.
class AlongsideChecker : public testing::ScriptedEvaluator, public testing::OneByOneChecker {
public:
    VariantChecker* checker() override { return this; }
    std::set<std::string> racy;
    bool alongside = true;
    double now = 0;
    double seconds_a_variant = 0;
    int evaluations = 0;
    std::vector<int> discarded;  // cases of the batches evolve threw away
    std::mutex mutex;
    std::vector<std::string> sanitized;  // in the order the checks ran

    std::size_t variants_evaluated = 0;

    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        now += seconds_a_variant > 0 ? seconds_a_variant * static_cast<double>(variants.size()) : 3.0;
        ++evaluations;
        variants_evaluated += variants.size();
        return ScriptedEvaluator::evaluate(variants, case_index);
    }
    void discard_evaluation(int case_index) override { discarded.push_back(case_index); }
    EvalResult sanitize_one(const Variant& variant, int) override {
        const std::string text = genome_to_text(variant.genome);
        std::lock_guard lock(mutex);
        sanitized.push_back(text);
        EvalResult result;
        if (racy.count(text)) {
            result.status = EvalStatus::SanitizerError;
            result.detail = "racecheck: hazard on shared memory";
        }
        return result;
    }
    std::future<std::vector<EvalResult>> sanitize_many_async(const std::vector<Variant>& variants, int case_index) override {
        if (!alongside) return VariantChecker::sanitize_many_async(variants, case_index);
        return std::async(std::launch::async, [this, variants, case_index] { return sanitize_many(variants, case_index); });
    }
    bool checks_alongside_evaluation() const override { return alongside; }
    // With `prescreens`, a first check that rejects the racy genomes at once, as the guard zones
    // reject a variant that writes outside its buffers; `prescreen_option`: EvolveOptions'.
    bool prescreens = false;
    bool prescreen_option = true;
    std::vector<std::string> prescreened;
    std::vector<std::optional<EvalResult>> prescreen(const std::vector<Variant>& variants, int) override {
        std::vector<std::optional<EvalResult>> out(variants.size());
        if (!prescreens) return out;
        for (std::size_t k = 0; k < variants.size(); ++k) {
            const std::string text = genome_to_text(variants[k].genome);
            prescreened.push_back(text);
            if (racy.count(text)) {
                EvalResult result;
                result.status = EvalStatus::SanitizerError;
                result.detail = "racecheck: hazard on shared memory";
                out[k] = result;
            }
        }
        return out;
    }
    ValidationReport validate(const Variant&) override {
        ValidationReport report;
        report.cases.push_back(CaseValidation{"cases/7", true, EvalStatus::Ok, 1000, 0, 0.0, 0.0, ""});
        report.elements = 1000;
        return report;
    }
};

// `through_history`: as `gi-tool evolve` runs it, through the history database's hooks and its
// fitness cache.
RunRecord evolve_with(AlongsideChecker& checker, bool overlap, const std::string& name, int generations = 5,
                      std::size_t population = 8, bool through_history = false, double time_limit_s = 0) {
    const Grammar grammar = testing::small_grammar();
    checker.fallback = testing::ok_in(1.1);
    checker.results["ROWS=2"] = testing::ok_in(0.6);
    EvolveOptions options;
    options.population = population;
    options.generations = generations;
    options.pre_tune = false;
    options.post_tune = false;
    options.minimise = false;
    options.overlap_gate = overlap;
    options.prescreen_gate = checker.prescreen_option;
    options.time_limit_s = time_limit_s;
    EvolveHooks hooks;
    hooks.clock = [&checker] { return checker.now; };
    const auto dir = std::filesystem::temp_directory_path() / ("gi-overlap-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    RunRecord record;
    if (through_history) {
        SearchHistory session(grammar, checker, nullptr, options, dir, OutMode::Fresh, {});
        record = evolve(grammar, session.evaluator(), options, dir, OutMode::Fresh, session.hooks(hooks));
        session.finish(record);
    } else {
        record = evolve(grammar, checker, options, dir, OutMode::Fresh, hooks);
    }
    std::filesystem::remove_all(dir);
    return record;
}

// The genome the gate checks first in the first generation, made the fastest and racy in `checkers`:
// a would-be parent that fails, so the guess bred with it is not the next generation. "" when the
// probe run gated nothing.
std::string spoil_first_parent(std::size_t population, bool through_history,
                               std::initializer_list<AlongsideChecker*> checkers) {
    AlongsideChecker probe;
    evolve_with(probe, false, "probe", 1, population, through_history);
    if (probe.sanitized.empty()) return "";
    const std::string fastest = probe.sanitized.front();
    for (AlongsideChecker* c : checkers) {
        c->racy = {fastest};
        c->results[fastest] = testing::ok_in(0.1);
    }
    return fastest;
}

void expect_the_same_search(const RunRecord& a, const RunRecord& b) {
    EXPECT_EQ(a.generations, b.generations);
    EXPECT_EQ(a.best.genome, b.best.genome);
    EXPECT_EQ(a.final_genome, b.final_genome);
}

TEST(GateOverlap, EvolveEvaluatesItsGuessWhileTheGateRunsAndTheRunIsTheSame) {
    AlongsideChecker sequential;
    const RunRecord plain = evolve_with(sequential, false, "off");
    EXPECT_EQ(plain.guesses_kept + plain.guesses_discarded, 0);
    AlongsideChecker overlapped;
    const RunRecord record = evolve_with(overlapped, true, "on");
    expect_the_same_search(record, plain);
    // Every generation after the first was the guess evaluated alongside the gate; none after the last.
    EXPECT_EQ(record.guesses_kept, 4);
    EXPECT_EQ(record.guesses_discarded, 0);
    EXPECT_EQ(overlapped.evaluations, sequential.evaluations);
    EXPECT_TRUE(overlapped.discarded.empty());
    // On the fake clock each evaluation takes 3 s: the four guesses' ran alongside the gate, and
    // the gate (no GPU turns to wait for here) held the search back for nothing.
    EXPECT_DOUBLE_EQ(record.search_evaluate_seconds, 15.0);
    EXPECT_DOUBLE_EQ(record.search_gate_alongside_seconds, 12.0);
    EXPECT_DOUBLE_EQ(record.search_gate_seconds, 0.0);
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("the gate's checks ran alongside 12.0 s of evaluating the next generation (4 of 4 guesses kept)"),
              std::string::npos) << summary;
}

TEST(GateOverlap, AGuessAParentSpoiledIsThrownAwayAndTheRunIsTheSame) {
    // The first generation's fastest fails the gate: the guess bred from it is not the next
    // generation, so it is thrown away (its case no longer counts as used) and the real one is
    // evaluated, as without the overlap.
    AlongsideChecker sequential, overlapped;
    const std::string fastest = spoil_first_parent(8, false, {&sequential, &overlapped});
    ASSERT_FALSE(fastest.empty());
    const RunRecord plain = evolve_with(sequential, false, "spoiled-off");
    const RunRecord record = evolve_with(overlapped, true, "spoiled-on");
    expect_the_same_search(record, plain);
    bool failed = false;
    for (const IndividualRecord& i : record.generations.front().individuals)
        failed = failed || (i.genome == fastest && i.status == EvalStatus::SanitizerError && !i.accepted);
    EXPECT_TRUE(failed);
    EXPECT_GE(record.guesses_discarded, 1);
    EXPECT_EQ(record.guesses_kept + record.guesses_discarded, 4);
    EXPECT_EQ(static_cast<long long>(overlapped.discarded.size()), record.guesses_discarded);
    // Evaluating the next generation again after a guess was not kept is an evaluation the
    // sequential run never made: the gate's cost.
    EXPECT_EQ(overlapped.evaluations, sequential.evaluations + record.guesses_discarded);
    EXPECT_DOUBLE_EQ(record.search_gate_seconds, 3.0 * static_cast<double>(record.guesses_discarded));
    EXPECT_DOUBLE_EQ(record.search_gate_discarded_seconds, record.search_gate_seconds);
    EXPECT_DOUBLE_EQ(record.search_gate_delay_seconds, 0.0);  // no GPU turns in this checker
    EXPECT_DOUBLE_EQ(record.search_evaluate_seconds, 15.0);
}

// Issue 44: a would-be parent the checker's prescreen rejects (the guard zones, milliseconds a
// variant) is left out of the guess at the next generation, so the guess is kept; the run is the
// same, and the same as without the prescreen, which throws the guess away.
TEST(GateOverlap, AParentThePrescreenRejectsIsLeftOutOfTheGuessWhichIsKept) {
    AlongsideChecker sequential, overlapped, unscreened;
    overlapped.prescreens = unscreened.prescreens = true;
    unscreened.prescreen_option = false;
    const std::string fastest = spoil_first_parent(8, false, {&sequential, &overlapped, &unscreened});
    ASSERT_FALSE(fastest.empty());
    const RunRecord plain = evolve_with(sequential, false, "prescreen-off");
    const RunRecord record = evolve_with(overlapped, true, "prescreen-on");
    const RunRecord without = evolve_with(unscreened, true, "prescreen-unused");
    expect_the_same_search(record, plain);
    expect_the_same_search(without, plain);
    EXPECT_GE(without.guesses_discarded, 1);
    EXPECT_TRUE(unscreened.prescreened.empty());
    EXPECT_EQ(record.guesses_discarded, 0);
    EXPECT_EQ(record.guesses_kept, 4);
    EXPECT_GE(record.gate_prescreen_rejected, 1);
    EXPECT_NE(std::find(overlapped.prescreened.begin(), overlapped.prescreened.end(), fastest), overlapped.prescreened.end());
    EXPECT_EQ(overlapped.evaluations, sequential.evaluations);
    EXPECT_DOUBLE_EQ(record.search_gate_discarded_seconds, 0.0);
    bool failed = false;
    for (const IndividualRecord& i : record.generations.front().individuals)
        failed = failed || (i.genome == fastest && i.status == EvalStatus::SanitizerError && !i.accepted);
    EXPECT_TRUE(failed);
}

// As `gi-tool evolve` runs it: a would-be parent that fails changes only the children it took part
// in (GP breeds each parent slot from a stream of its own), and the history's fitness cache answers
// for the rest from the guess's measurements, so evaluating again costs those few children.
TEST(GateOverlap, ThroughTheHistoryAFailedParentCostsOnlyTheChildrenItTookPartIn) {
    constexpr std::size_t kPopulation = 24;
    AlongsideChecker sequential, overlapped;
    ASSERT_FALSE(spoil_first_parent(kPopulation, true, {&sequential, &overlapped}).empty());
    const RunRecord plain = evolve_with(sequential, false, "history-off", 5, kPopulation, true);
    const RunRecord record = evolve_with(overlapped, true, "history-on", 5, kPopulation, true);
    expect_the_same_search(record, plain);
    ASSERT_GE(record.guesses_discarded, 1);
    // What the overlap evaluated that the sequential run did not: per guess not kept, the children
    // the guess bred with the failed parent (two of its own, one or two that mated with it).
    ASSERT_GE(overlapped.variants_evaluated, sequential.variants_evaluated);
    EXPECT_LE(overlapped.variants_evaluated - sequential.variants_evaluated,
              5u * static_cast<std::size_t>(record.guesses_discarded))
        << "of " << kPopulation << " a generation";
}

// A guess evaluated while the budget lasted that is the next generation is that generation, as
// one started just before the limit runs to its end without the overlap: not thrown away.
TEST(GateOverlap, AGuessEvaluatedInTheBudgetIsKeptWhenTheLimitPassesMeanwhile) {
    // Each variant takes 0.375 s on the fake clock, a generation of 8 distinct ones 3 s. Of the
    // 8 s, the search has until 7.2 (5% each is held back for confirming the best and the final
    // checks: run/time_budget.hpp); a generation expected to end by then is evaluated whole, one that is
    // not in parts until then (run/generation_parts.hpp). With the overlap the second generation's
    // guess is evaluated from 3 to 6 s (it was expected to end in time when it started); at 6 s it
    // no longer would, but the guess is the next generation, so it is kept, as a generation started
    // in time runs to its end. The third is evaluated in parts: the 3 variants that fit the 1.2 s left.
    AlongsideChecker sequential;
    sequential.seconds_a_variant = 0.375;
    const RunRecord plain = evolve_with(sequential, false, "limit-off", 50, 8, false, 8);
    EXPECT_EQ(plain.stop_reason, "time limit (generation 3 stopped after 3 of 8 variants)");
    ASSERT_EQ(plain.generations.size(), 3u);
    AlongsideChecker overlapped;
    overlapped.seconds_a_variant = 0.375;
    const RunRecord record = evolve_with(overlapped, true, "limit-on", 50, 8, false, 8);
    EXPECT_EQ(record.stop_reason, plain.stop_reason);
    expect_the_same_search(record, plain);
    EXPECT_EQ(record.guesses_discarded, 0);
    EXPECT_EQ(record.guesses_kept, 1);
    EXPECT_DOUBLE_EQ(record.search_gate_seconds, 0.0);
    EXPECT_EQ(overlapped.evaluations, sequential.evaluations);
    // The phases' wall times: search, then confirming the best (no tuning or minimising here).
    EXPECT_DOUBLE_EQ(record.search_seconds, 7.125);
    EXPECT_NE(run_summary(record).find("wall time by phase:  pre-tuning 0.0 s, search 7.1 s"), std::string::npos)
        << run_summary(record);
}

TEST(GateOverlap, ACheckerThatCannotRunAlongsideIsGatedAsBefore) {
    AlongsideChecker checker;
    checker.alongside = false;
    const RunRecord record = evolve_with(checker, true, "not-alongside");
    EXPECT_EQ(record.guesses_kept + record.guesses_discarded, 0);
    AlongsideChecker sequential;
    expect_the_same_search(record, evolve_with(sequential, false, "not-alongside-off"));
}

// evolve reaches the checker through the history database's locked evaluator: the overlap's calls
// must reach the inner checker, or evolve silently gates between generations again.
TEST(GateOverlap, TheLockedEvaluatorPassesTheOverlapToTheInnerChecker) {
    const Grammar grammar = testing::small_grammar();
    AlongsideChecker checker;
    checker.racy = {"<_k.cu_11>"};
    const std::unique_ptr<LockedEvaluator> locked = make_locked(checker);
    VariantChecker* locked_checker = locked->checker();
    ASSERT_EQ(locked_checker, static_cast<VariantChecker*>(&checker));
    EXPECT_TRUE(locked_checker->checks_alongside_evaluation());
    std::future<std::vector<EvalResult>> verdicts = locked_checker->sanitize_many_async(
        {make_variant(parse_genome("<_k.cu_10>"), grammar), make_variant(parse_genome("<_k.cu_11>"), grammar)}, 0);
    const std::vector<EvalResult> v = verdicts.get();
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0].status, EvalStatus::Ok);
    EXPECT_EQ(v[1].status, EvalStatus::SanitizerError);
    EXPECT_EQ(checker.sanitized.size(), 2u);
    locked_checker->discard_evaluation(3);
    EXPECT_EQ(checker.discarded, (std::vector<int>{3}));
}

Scored overlap_scored(const std::string& genome, double ms, double error = 0) {
    Scored s;
    s.genome = parse_genome(genome);
    s.result = testing::ok_in(ms);
    s.result.error = error;
    s.accepted = true;
    s.speedup = 1.0 / ms;
    return s;
}

// start_gate asks about the would-be parents and the fastest at once; finish_gate then walks the
// batch as gate_batch does, asking only about what is still missing.
TEST(GateOverlap, AStartedGateLeavesTheBatchAsTheWalkDoes) {
    const Grammar grammar = testing::small_grammar();
    auto batch_of = [] {
        ScoredBatch batch;
        batch.scored = {overlap_scored("<_k.cu_10>", 0.5), overlap_scored("<_k.cu_11>", 0.6), overlap_scored("<_k.cu_12>", 0.7),
                        overlap_scored("<_k.cu_13>", 0.8), overlap_scored("<_k.cu_14>", 0.9), overlap_scored("<_k.cu_15>", 0.2, 0.5),
                        overlap_scored("<_k.cu_10>", 0.5)};
        batch.scored[6].repeat = true;
        return batch;
    };
    for (const std::set<std::string>& racy : std::vector<std::set<std::string>>{
             {}, {"<_k.cu_11>"}, {"<_k.cu_10>", "<_k.cu_12>"}, {"<_k.cu_15>"}, {"<_k.cu_15>", "<_k.cu_11>"}}) {
        AlongsideChecker walked;
        walked.racy = racy;
        ScoredBatch expected = batch_of();
        const int expected_failed = gate_batch(expected, walked, grammar, 2);
        AlongsideChecker started;
        started.racy = racy;
        ScoredBatch batch = batch_of();
        StartedGate gate = start_gate(batch, started, grammar, 2);
        // The two would-be parents are _10 and its repeat (one program), then the fastest, _15,
        // ranked last by its error.
        EXPECT_EQ(gate.keys.size(), 2u);
        const int failed = finish_gate(gate, batch, started, grammar, 2);
        EXPECT_EQ(failed, expected_failed);
        for (std::size_t i = 0; i < batch.scored.size(); ++i) {
            EXPECT_EQ(batch.scored[i].accepted, expected.scored[i].accepted) << i;
            EXPECT_EQ(batch.scored[i].result.status, expected.scored[i].result.status) << i;
        }
        EXPECT_EQ(std::set<std::string>(started.sanitized.begin(), started.sanitized.end()),
                  std::set<std::string>(walked.sanitized.begin(), walked.sanitized.end()));
    }
}

}  // namespace
}  // namespace gi
