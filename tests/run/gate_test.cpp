#include "run/gate.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include <unistd.h>

#include "search/anneal_pool.hpp"
#include "run/evolve.hpp"
#include "run/final_check.hpp"
#include "run/record_xml.hpp"
#include "../support/search_test_support.hpp"

namespace gi {
namespace {

// An evaluator with the sanitizer and validation gates, failing the sanitizer for chosen genomes.
class CheckedEvaluator : public testing::ScriptedEvaluator, public testing::OneByOneChecker {
public:
    VariantChecker* checker() override { return this; }
    std::set<std::string> racy;  // genome texts the sanitizer rejects
    std::set<std::string> wrong_held_out;  // genome texts with mismatches on the held-out case
    bool no_validation_cases = false;      // every case used by search, no held-out folder
    std::vector<std::string> sanitized;
    int validations = 0;
    std::string validated;
    EvalResult sanitize_one(const Variant& variant, int) override {
        sanitized.push_back(genome_to_text(variant.genome));
        EvalResult result;
        if (racy.count(genome_to_text(variant.genome))) {
            result.status = EvalStatus::SanitizerError;
            result.detail = "racecheck: hazard on shared memory";
        }
        return result;
    }
    ValidationReport validate(const Variant& variant) override {
        ++validations;
        validated = genome_to_text(variant.genome);
        ValidationReport report;
        if (no_validation_cases) return report;
        const std::uint64_t wrong = wrong_held_out.count(validated) ? 12 : 0;
        report.cases.push_back(CaseValidation{"cases/7", true, EvalStatus::Ok, 1000, wrong, wrong ? 0.2 : 0.0, 0.0, ""});
        report.elements = 1000;
        report.mismatches = wrong;
        report.worst_error = wrong ? 0.2 : 0.0;
        return report;
    }
};

Scored scored(const std::string& genome, double ms) {
    Scored s;
    s.genome = parse_genome(genome);
    s.result = testing::ok_in(ms);
    s.accepted = true;
    s.speedup = 1.0 / ms;
    return s;
}

// A short search without tuning: what these tests need of evolve.
EvolveOptions short_search(int generations) {
    EvolveOptions options;
    options.population = 8;
    options.generations = generations;
    options.pre_tune = false;
    options.post_tune = false;
    return options;
}

TEST(Gate, FailingIndividualsLoseAcceptanceAndTheNextInLineIsChecked) {
    const Grammar grammar = testing::small_grammar();
    CheckedEvaluator checker;
    checker.racy = {"<_k.cu_10>", "<_k.cu_12>"};
    ScoredBatch batch;
    batch.scored = {scored("<_k.cu_10>", 0.5), scored("<_k.cu_11>", 0.6), scored("<_k.cu_12>", 0.7),
                    scored("<_k.cu_13>", 0.8), scored("<_k.cu_14>", 0.9), scored("<_k.cu_10>", 0.5)};
    batch.scored[5].repeat = true;
    EXPECT_EQ(gate_batch(batch, checker, grammar, 2), 2);
    // Two parents wanted: _10 fails, _11 passes, _12 fails, _13 passes; _14 is never checked.
    EXPECT_EQ(checker.sanitized, (std::vector<std::string>{"<_k.cu_10>", "<_k.cu_11>", "<_k.cu_12>", "<_k.cu_13>"}));
    EXPECT_FALSE(batch.scored[0].accepted);
    EXPECT_FALSE(batch.scored[5].accepted);  // the repeat of the failed program
    EXPECT_EQ(batch.scored[0].result.status, EvalStatus::SanitizerError);
    EXPECT_EQ(batch.scored[0].result.detail, "racecheck: hazard on shared memory");
    EXPECT_TRUE(batch.scored[1].accepted);
    EXPECT_FALSE(batch.scored[2].accepted);
    EXPECT_TRUE(batch.scored[3].accepted);
    EXPECT_TRUE(batch.scored[4].accepted);
}

// A checker that can judge several variants at once is asked in waves: as many as parents are
// still missing, each program once.
class WaveChecker : public CheckedEvaluator {
public:
    std::vector<std::size_t> waves;
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) override {
        waves.push_back(variants.size());
        return CheckedEvaluator::sanitize_many(variants, case_index);
    }
};

TEST(Gate, AskAParallelCheckerInWavesOfTheMissingParents) {
    const Grammar grammar = testing::small_grammar();
    WaveChecker checker;
    checker.racy = {"<_k.cu_11>", "<_k.cu_12>"};
    ScoredBatch batch;
    batch.scored = {scored("<_k.cu_10>", 0.5), scored("<_k.cu_11>", 0.6), scored("<_k.cu_12>", 0.7),
                    scored("<_k.cu_13>", 0.8), scored("<_k.cu_14>", 0.9), scored("<_k.cu_15>", 1.0)};
    EXPECT_EQ(gate_batch(batch, checker, grammar, 3), 2);
    // Three parents: 10, 11, 12 at once (two fail), then 13 and 14 at once; 15 is never asked about.
    EXPECT_EQ(checker.waves, (std::vector<std::size_t>{3, 2}));
    EXPECT_EQ(checker.sanitized,
              (std::vector<std::string>{"<_k.cu_10>", "<_k.cu_11>", "<_k.cu_12>", "<_k.cu_13>", "<_k.cu_14>"}));
    EXPECT_TRUE(batch.scored[0].accepted);
    EXPECT_FALSE(batch.scored[1].accepted);
    EXPECT_FALSE(batch.scored[2].accepted);
    EXPECT_TRUE(batch.scored[3].accepted);
    EXPECT_TRUE(batch.scored[4].accepted);
    EXPECT_TRUE(batch.scored[5].accepted);
}

// evolve's search goes through the history database's locked evaluator, so everything the gate
// asks must reach the inner checker: its waves whole, or the parallel, batched gate runs one
// compute-sanitizer process at a time (it did: 86% of a stereo search's time on the H100, issue
// 19); and the gate's own cases and its sessions started ahead, or evolve's gate runs on the
// training case (row_filter's 385 MB one, where 8 memcheck sessions spent 24.9 s opening it,
// H200) with nothing started ahead (it did, until 9fbe889).
class GateCaseChecker : public WaveChecker {
public:
    std::vector<int> checked_on;
    int expected = 0;
    int gate_case(int) const override { return 7; }
    void expect_checks() override { ++expected; }
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) override {
        checked_on.push_back(case_index);
        return WaveChecker::sanitize_many(variants, case_index);
    }
};

TEST(Gate, TheLockedEvaluatorPassesEverythingToTheInnerChecker) {
    const Grammar grammar = testing::small_grammar();
    GateCaseChecker checker;
    const std::unique_ptr<LockedEvaluator> locked = make_locked(checker);
    VariantChecker* locked_checker = locked->checker();
    ASSERT_EQ(locked_checker, static_cast<VariantChecker*>(&checker));
    locked_checker->expect_checks();
    EXPECT_EQ(checker.expected, 1);
    EXPECT_EQ(locked_checker->gate_case(0), 7);
    ScoredBatch batch;
    batch.case_index = 0;
    batch.scored = {scored("<_k.cu_10>", 0.5), scored("<_k.cu_11>", 0.6), scored("<_k.cu_12>", 0.7),
                    scored("<_k.cu_13>", 0.8)};
    EXPECT_EQ(gate_batch(batch, *locked_checker, grammar, 4), 0);
    EXPECT_EQ(checker.waves, (std::vector<std::size_t>{4}));
    EXPECT_EQ(checker.checked_on, (std::vector<int>{7}));
}

TEST(Gate, TheFastestAcceptedIsCheckedEvenWhenErrorRanksItLow) {
    const Grammar grammar = testing::small_grammar();
    CheckedEvaluator checker;
    checker.racy = {"<_k.cu_12>"};
    ScoredBatch batch;
    batch.scored = {scored("<_k.cu_10>", 0.8), scored("<_k.cu_11>", 0.9), scored("<_k.cu_12>", 0.3),
                    scored("<_k.cu_13>", 0.4)};
    batch.scored[2].result.error = 0.5;  // allowed error, so accepted, but ranked after exact ones
    batch.scored[3].result.error = 0.5;
    gate_batch(batch, checker, grammar, 1);
    EXPECT_EQ(checker.sanitized, (std::vector<std::string>{"<_k.cu_10>", "<_k.cu_12>", "<_k.cu_13>"}));
    EXPECT_FALSE(batch.scored[2].accepted);
    EXPECT_TRUE(batch.scored[3].accepted);
}

TEST(Gate, EvolveNeverKeepsAVariantThatFailsTheSanitizerAndValidatesTheFinalOne) {
    const Grammar grammar = testing::small_grammar();
    CheckedEvaluator checker;
    checker.fallback = testing::ok_in(1.1);
    checker.results["BLOCK=32"] = testing::ok_in(0.3);  // fastest by far, but racy
    checker.results["ROWS=2"] = testing::ok_in(0.6);
    checker.racy = {"BLOCK=32"};
    EvolveOptions options = short_search(3);
    const auto dir = std::filesystem::temp_directory_path() / ("gi-gate-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const RunRecord record = evolve(grammar, checker, options, dir, OutMode::Fresh);
    ASSERT_TRUE(record.best.found);
    EXPECT_EQ(record.best.genome.find("BLOCK=32"), std::string::npos) << record.best.genome;
    bool saw_rejection = false;
    for (const GenerationRecord& g : record.generations)
        for (const IndividualRecord& i : g.individuals)
            if (i.genome == "BLOCK=32") {
                saw_rejection = true;
                EXPECT_EQ(i.status, EvalStatus::SanitizerError);
                EXPECT_FALSE(i.accepted);
            }
    EXPECT_TRUE(saw_rejection);
    EXPECT_EQ(checker.validations, 1);
    EXPECT_EQ(checker.validated, record.final_genome);
    EXPECT_TRUE(record.final_check.ran);
    EXPECT_TRUE(record.final_check.passed);
    EXPECT_EQ(record.final_check.summary, "validated 1 cases (1 held out): 1000 elements, 0 beyond tolerance, worst error 0");
    std::filesystem::remove_all(dir);
}

// While the gate runs, evolve hands the checker its guess at the next generation (prepare_ahead,
// which a compiling evaluator builds meanwhile). With no parent failing the gate the guess is the
// next generation exactly; a parent that fails makes it wrong, and changes nothing else; and there is
// no guess after the last generation.
class GuessRecordingEvaluator : public CheckedEvaluator {
public:
    std::vector<std::set<std::string>> guesses;
    std::vector<std::set<std::string>> evaluated;
    void prepare_ahead(const std::vector<Variant>& variants) override { guesses.push_back(texts(variants)); }
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        evaluated.push_back(texts(variants));
        return CheckedEvaluator::evaluate(variants, case_index);
    }
    static std::set<std::string> texts(const std::vector<Variant>& variants) {
        std::set<std::string> out;
        for (const Variant& v : variants) out.insert(genome_to_text(v.genome));
        return out;
    }
};

RunRecord evolve_guessing(GuessRecordingEvaluator& evaluator, const std::string& name) {
    const Grammar grammar = testing::small_grammar();
    evaluator.fallback = testing::ok_in(1.1);
    evaluator.results["ROWS=2"] = testing::ok_in(0.6);
    EvolveOptions options = short_search(4);
    options.minimise = false;
    const auto dir = std::filesystem::temp_directory_path() / ("gi-gate-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const RunRecord record = evolve(grammar, evaluator, options, dir, OutMode::Fresh);
    std::filesystem::remove_all(dir);
    return record;
}

TEST(Gate, EvolveCompilesItsGuessAtTheNextGenerationWhileTheGateRuns) {
    GuessRecordingEvaluator evaluator;
    const RunRecord record = evolve_guessing(evaluator, "guess");
    ASSERT_EQ(record.generations.size(), 4u);
    ASSERT_EQ(evaluator.guesses.size(), 3u);  // none after the last generation
    ASSERT_GE(evaluator.evaluated.size(), 4u);
    for (std::size_t g = 0; g < 3; ++g) EXPECT_EQ(evaluator.guesses[g], evaluator.evaluated[g + 1]) << "generation " << g + 1;

    // The fastest variant of the first generation fails the gate: the guess made before the gate
    // counted it as a parent, the next generation does not; the run is otherwise the same one.
    GuessRecordingEvaluator failing;
    failing.racy = {*evaluator.evaluated[0].begin()};
    failing.results[*evaluator.evaluated[0].begin()] = testing::ok_in(0.1);
    const RunRecord failed = evolve_guessing(failing, "guess-fail");
    ASSERT_GE(failing.evaluated.size(), 2u);
    ASSERT_FALSE(failing.guesses.empty());
    EXPECT_NE(failing.guesses[0], failing.evaluated[1]);
    GuessRecordingEvaluator again;
    again.racy = failing.racy;
    again.results = failing.results;
    const RunRecord repeated = evolve_guessing(again, "guess-again");
    EXPECT_EQ(again.evaluated, failing.evaluated);
    EXPECT_EQ(repeated.best.genome, failed.best.genome);
}

// Where a generation's time goes, on a fake clock: every evaluate() "takes" 3 s and every sanitizer
// check 1 s. The record sums both over the search (not the final check's), and the summary says so.
class SlowCheckedEvaluator : public CheckedEvaluator {
public:
    double now = 0;
    bool searching = true;
    int search_evaluations = 0, search_checks = 0;
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override {
        now += 3;
        search_evaluations += searching;
        return CheckedEvaluator::evaluate(variants, case_index);
    }
    EvalResult sanitize_one(const Variant& variant, int case_index) override {
        now += 1;
        search_checks += searching;
        return CheckedEvaluator::sanitize_one(variant, case_index);
    }
};

TEST(Gate, EvolveRecordsTheSearchTimeSpentEvaluatingAndGating) {
    const Grammar grammar = testing::small_grammar();
    SlowCheckedEvaluator checker;
    checker.fallback = testing::ok_in(1.1);
    checker.results["ROWS=2"] = testing::ok_in(0.6);
    EvolveOptions options = short_search(3);
    EvolveHooks hooks;
    hooks.clock = [&checker] { return checker.now; };
    hooks.after_checkpoint = [&checker, &options](int done) {
        if (done == options.generations) checker.searching = false;
    };
    const auto dir = std::filesystem::temp_directory_path() / ("gi-gate-time-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const RunRecord record = evolve(grammar, checker, options, dir, OutMode::Fresh, hooks);
    ASSERT_EQ(record.generations.size(), 3u);
    EXPECT_GE(checker.search_evaluations, 3);
    EXPECT_GT(checker.search_checks, 0);
    EXPECT_DOUBLE_EQ(record.search_evaluate_seconds, 3.0 * checker.search_evaluations);
    EXPECT_DOUBLE_EQ(record.search_gate_seconds, 1.0 * checker.search_checks);
    EXPECT_GT(record.wall_seconds, record.search_evaluate_seconds + record.search_gate_seconds);  // the final check too
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("search time:         evaluating " + std::to_string(3 * checker.search_evaluations) + ".0 s"),
              std::string::npos) << summary;
    // Both sums survive the record's round trip (a resumed run adds to them).
    tinyxml2::XMLDocument document;
    ASSERT_EQ(document.LoadFile((dir / "run.xml").c_str()), tinyxml2::XML_SUCCESS);
    const RunRecord reread = read_run_record(document.RootElement(), "run.xml");
    EXPECT_DOUBLE_EQ(reread.search_evaluate_seconds, record.search_evaluate_seconds);
    EXPECT_DOUBLE_EQ(reread.search_gate_seconds, record.search_gate_seconds);
    std::filesystem::remove_all(dir);
}

// An edit that is right on the training cases but wrong on held-out inputs (a limiter deleted that
// only shocks need) is never shipped: the final check falls back to the next candidate that passes.
TEST(Gate, AFinalVariantWrongOnHeldOutCasesFallsBackToOneThatPasses) {
    const Grammar grammar = testing::small_grammar();
    CheckedEvaluator checker;
    checker.fallback = testing::ok_in(1.1);
    checker.results["BLOCK=32"] = testing::ok_in(0.3);
    checker.wrong_held_out = {"BLOCK=32"};
    EvolveOptions options = short_search(3);
    options.minimise = false;
    const auto dir = std::filesystem::temp_directory_path() / ("gi-gate-heldout-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const RunRecord record = evolve(grammar, checker, options, dir, OutMode::Fresh);
    ASSERT_TRUE(record.best.found);
    EXPECT_EQ(record.best.genome, "BLOCK=32");
    EXPECT_NE(record.final_genome, "BLOCK=32");
    EXPECT_NE(record.final_check.note.find("gave up 'BLOCK=32': held-out validation: 1 of 1 case did not pass: 7 (held out): "
                                           "12 of 1000 output elements beyond tolerance, worst error 0.2"),
              std::string::npos)
        << record.final_check.note;
    EXPECT_TRUE(record.final_check.ran);
    EXPECT_TRUE(record.final_check.passed);
    std::filesystem::remove_all(dir);
}

TEST(Gate, NoCaseLeftToValidateOnIsSaidNotCalledAFailure) {
    const Grammar grammar = testing::small_grammar();
    CheckedEvaluator checker;
    checker.fallback = testing::ok_in(1.1);
    checker.results["ROWS=2"] = testing::ok_in(0.6);
    checker.no_validation_cases = true;
    EvolveOptions options;
    options.population = 8;
    options.generations = 2;
    options.pre_tune = false;
    options.post_tune = false;
    const auto dir = std::filesystem::temp_directory_path() / ("gi-gate-nocases-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const RunRecord record = evolve(grammar, checker, options, dir, OutMode::Fresh);
    EXPECT_FALSE(record.final_check.ran);
    EXPECT_FALSE(record.final_check.passed);
    EXPECT_NE(record.final_check.note.find("not validated: every training case was used"), std::string::npos)
        << record.final_check.note;
    EXPECT_EQ(run_summary(record).find("FAILED"), std::string::npos) << run_summary(record);
    std::filesystem::remove_all(dir);
}

// The genome shipped is the first candidate that passes the sanitizer and held-out validation; the
// record says why each one before it was given up, and what validated the one kept.
TEST(FinalCheck, TheFirstCandidatePassingBothIsShippedAndTheOthersSayWhy) {
    const Grammar grammar = testing::small_grammar();
    const std::vector<Genome> candidates{parse_genome("ROWS=2 <_k.cu_10>"), parse_genome("ROWS=2"),
                                         parse_genome("BLOCK=32"), Genome{}};
    CheckedEvaluator checker;
    checker.racy = {"ROWS=2 <_k.cu_10>"};
    checker.wrong_held_out = {"ROWS=2"};
    std::vector<std::string> heard;
    const FinalChoice choice =
        choose_final_genome(candidates, checker, grammar, 1, [&](const std::string& line) { heard.push_back(line); });
    EXPECT_EQ(genome_to_text(choice.genome), "BLOCK=32");
    EXPECT_TRUE(choice.check.ran);
    EXPECT_TRUE(choice.check.passed);
    EXPECT_EQ(choice.check.elements, 1000);
    EXPECT_NE(choice.check.note.find("gave up 'ROWS=2 <_k.cu_10>': the sanitizer gate: sanitizer-error (racecheck"),
              std::string::npos)
        << choice.check.note;
    EXPECT_NE(choice.check.note.find("gave up 'ROWS=2': held-out validation: 1 of 1 case did not pass: 7 (held out): "
                                     "12 of 1000 output elements beyond tolerance"),
              std::string::npos)
        << choice.check.note;
    EXPECT_EQ(heard.size(), 2u);  // the two that passed the sanitizer were validated
}

// The search's gate checks each parent on one of the cases recorded for the gate (a recording of
// several launches is several cases); the final checks run the chosen one on every one of them,
// and a stray access in any gives the candidate up.
class GateOnlyCasesChecker : public CheckedEvaluator {
public:
    std::vector<int> gate_only_cases() const override { return {5, 6, 7}; }
    std::vector<std::pair<std::string, int>> calls;
    std::set<std::pair<std::string, int>> faulting;  // (genome, case) the sanitizer rejects
    EvalResult sanitize_one(const Variant& variant, int case_index) override {
        const std::string text = genome_to_text(variant.genome);
        calls.emplace_back(text, case_index);
        EvalResult result;
        if (faulting.count({text, case_index})) {
            result.status = EvalStatus::SanitizerError;
            result.detail = "guard pages: CUDA_ERROR_ILLEGAL_ADDRESS";
        }
        return result;
    }
};

TEST(FinalCheck, TheChosenVariantPassesTheGateOnEveryCaseRecordedForIt) {
    const Grammar grammar = testing::small_grammar();
    GateOnlyCasesChecker checker;
    checker.faulting = {{"ROWS=2", 6}};
    const FinalChoice choice =
        choose_final_genome({parse_genome("ROWS=2"), parse_genome("BLOCK=32"), Genome{}}, checker, grammar, 1, nullptr);
    EXPECT_EQ(genome_to_text(choice.genome), "BLOCK=32");
    EXPECT_NE(choice.check.note.find("gave up 'ROWS=2': the sanitizer gate on gate case 6 (--sanitize-cases): sanitizer-error"),
              std::string::npos)
        << choice.check.note;
    using Call = std::pair<std::string, int>;
    EXPECT_EQ(checker.calls, (std::vector<Call>{{"ROWS=2", 1}, {"ROWS=2", 5}, {"ROWS=2", 6},  // stops at the fault
                                                {"BLOCK=32", 1}, {"BLOCK=32", 5}, {"BLOCK=32", 6}, {"BLOCK=32", 7}}));
}

TEST(FinalCheck, WhenNoCandidatePassesTheOriginalIsShippedAndValidated) {
    const Grammar grammar = testing::small_grammar();
    CheckedEvaluator checker;
    checker.racy = {"ROWS=2"};
    const FinalChoice choice = choose_final_genome({parse_genome("ROWS=2"), parse_genome("ROWS=2"), Genome{}}, checker,
                                                   grammar, 0, nullptr);
    EXPECT_TRUE(choice.genome.empty());
    EXPECT_EQ(checker.sanitized, std::vector<std::string>{"ROWS=2"}) << "a repeated candidate is tried once";
    EXPECT_EQ(checker.validated, "");  // the original
    EXPECT_TRUE(choice.check.ran && choice.check.passed);
    checker.no_validation_cases = true;
    const FinalChoice unvalidated = choose_final_genome({parse_genome("BLOCK=32")}, checker, grammar, 0, nullptr);
    EXPECT_EQ(genome_to_text(unvalidated.genome), "BLOCK=32");
    EXPECT_FALSE(unvalidated.check.ran);
    EXPECT_NE(unvalidated.check.note.find("not validated"), std::string::npos);
}

}  // namespace
}  // namespace gi
