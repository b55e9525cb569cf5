// Issue 40, item 7: a validation that does not pass says why, case by case, and never "failed"
// beside counts that passed. The run quoted: "gave up '...': held-out validation failed: validated 3
// cases (3 held out): 3145728 elements, 0 beyond tolerance, worst error 0": a case that did not run
// to the end, said nowhere.
#include <gtest/gtest.h>

#include "evaluate/variant_checker.hpp"
#include "grammar/build_grammar.hpp"
#include "run/final_check.hpp"
#include "run/run_record.hpp"

namespace gi {
namespace {

CaseValidation validation_case_of(const std::string& path, bool held_out, EvalStatus status = EvalStatus::Ok,
                              std::uint64_t mismatches = 0, const std::string& detail = "") {
    CaseValidation c;
    c.case_path = path;
    c.held_out = held_out;
    c.status = status;
    c.elements = 1048576;
    c.mismatches = mismatches;
    c.worst_error = mismatches > 0 ? 0.5 : 0.0;
    c.detail = detail;
    return c;
}

ValidationReport validation_report_of(std::vector<CaseValidation> cases) {
    ValidationReport r;
    for (const CaseValidation& c : cases) {
        r.elements += c.elements;
        r.mismatches += c.mismatches;
        r.worst_error = std::max(r.worst_error, c.worst_error);
    }
    r.cases = std::move(cases);
    r.built_by = "nvcc, the whole file";
    return r;
}

// The issue's report: three held-out cases, every compared element right, one case timed out.
ValidationReport the_issues_report() {
    return validation_report_of({validation_case_of("held/k-0000", true),
                      validation_case_of("held/k-0001", true, EvalStatus::Timeout, 0,
                                     "the kernel ran past 10x the original's time + 30 ms (412 ms)"),
                      validation_case_of("held/k-0002", true)});
}

TEST(ValidationMessage, ACaseThatDidNotRunIsNamedWithWhatHappened) {
    const ValidationReport r = the_issues_report();
    ASSERT_FALSE(r.passed());
    EXPECT_EQ(r.failure(),
              "1 of 3 cases did not pass: k-0001 (held out) did not run to the end: timeout (the kernel ran past 10x "
              "the original's time + 30 ms (412 ms))");
    const std::string refusal = validation_refusal("BLOCK=64", r);
    EXPECT_EQ(refusal.find("failed"), std::string::npos) << refusal;
    EXPECT_EQ(refusal, "gave up 'BLOCK=64': held-out validation: " + r.failure());
}

TEST(ValidationMessage, OutputsBeyondToleranceAreCountedOnTheCaseThatHasThem) {
    const ValidationReport r =
        validation_report_of({validation_case_of("cases/k-0003", false, EvalStatus::Ok, 12), validation_case_of("held/k-0000", true)});
    EXPECT_EQ(r.failure(), "1 of 2 cases did not pass: k-0003 (a training case search never drew): 12 of 1048576 "
                           "output elements beyond tolerance, worst error 0.5");
}

TEST(ValidationMessage, WrongOutputsAndCrashesAreToldApart) {
    const ValidationReport r = validation_report_of({validation_case_of("held/a", true, EvalStatus::WrongAnswer, 0, "NaN in output 0"),
                                          validation_case_of("held/b", true, EvalStatus::Crash)});
    EXPECT_EQ(r.failure(), "2 of 2 cases did not pass: a (held out) gave wrong outputs: wrong-answer (NaN in output 0); "
                           "b (held out) did not run to the end: crash");
}

TEST(ValidationMessage, ManyFailingCasesNameThreeAndCountTheRest) {
    std::vector<CaseValidation> cases;
    for (int i = 0; i < 5; ++i) cases.push_back(validation_case_of("held/c" + std::to_string(i), true, EvalStatus::Ok, 1));
    const std::string failure = validation_report_of(cases).failure();
    EXPECT_EQ(failure.rfind("5 of 5 cases did not pass: c0 (held out)", 0), 0u) << failure;
    EXPECT_NE(failure.find("c2 (held out)"), std::string::npos) << failure;
    EXPECT_EQ(failure.find("c3 (held out)"), std::string::npos) << failure;
    EXPECT_NE(failure.find("; and 2 more"), std::string::npos) << failure;
}

TEST(ValidationMessage, APassingReportHasNoFailureAndTheSummaryNoVerdictBesideItsCounts) {
    const ValidationReport passing = validation_report_of({validation_case_of("held/a", true), validation_case_of("held/b", true)});
    EXPECT_TRUE(passing.passed());
    EXPECT_EQ(passing.failure(), "");
    EXPECT_EQ(passing.summary().find(" -- "), std::string::npos) << passing.summary();
    EXPECT_EQ(validation_record_summary(passing),
              "validated 2 cases (2 held out): 2097152 elements, 0 beyond tolerance, worst error 0, built by nvcc, the "
              "whole file");
    // A report that did not pass gives its reason first, in the record and at the terminal.
    const ValidationReport failing = the_issues_report();
    EXPECT_EQ(validation_record_summary(failing).rfind(failing.failure() + "; validated 3 cases", 0), 0u)
        << validation_record_summary(failing);
    EXPECT_NE(failing.summary().find(" -- 1 of 3 cases did not pass: k-0001"), std::string::npos) << failing.summary();
    EXPECT_EQ(failing.summary().find("FAILED"), std::string::npos) << failing.summary();
}

// A checker whose validations all hold the issue's report: every element right, one case timed out.
class TimingOutValidation : public Evaluator, public VariantChecker {
public:
    EvaluatorTraits traits() const override { return {"timing-out validation", 1, true, false}; }
    BatchResult evaluate(const std::vector<Variant>& variants, int) override {
        BatchResult batch;
        batch.results.resize(variants.size());
        return batch;
    }
    VariantChecker* checker() override { return this; }
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int) override {
        return std::vector<EvalResult>(variants.size());
    }
    ValidationReport validate(const Variant&) override { return the_issues_report(); }
};

// Through the final checks, as evolve runs them: the note and the record's summary say which case
// did not pass and what happened there.
TEST(ValidationMessage, TheFinalChecksSayWhichCaseDidNotPassAndWhy) {
    GrammarOptions options;
    options.params = {parse_param_declaration("BLOCK=32,64", "--param")};
    const Grammar grammar = build_grammar(
        make_source_file("k.cu", "#define BLOCK 64\n__global__ void k(float* a) { a[threadIdx.x] = BLOCK; }\n"), options);
    TimingOutValidation checker;
    const FinalChoice choice = choose_final_genome({parse_genome("BLOCK=32"), Genome{}}, checker, grammar, 0, nullptr);
    EXPECT_TRUE(choice.genome.empty());
    const std::string& note = choice.check.note;
    EXPECT_NE(note.find("gave up 'BLOCK=32': held-out validation: 1 of 3 cases did not pass: k-0001 (held out) did not "
                        "run to the end: timeout"),
              std::string::npos)
        << note;
    EXPECT_EQ(note.find("failed"), std::string::npos) << note;
    // The original kernel, validated last, did not pass either: the record leads with why.
    EXPECT_FALSE(choice.check.passed);
    EXPECT_EQ(choice.check.summary.rfind("1 of 3 cases did not pass: k-0001", 0), 0u) << choice.check.summary;
    RunRecord record;
    record.final_check = choice.check;
    const std::string summary = run_summary(record);
    EXPECT_NE(summary.find("validation:          FAILED: 1 of 3 cases did not pass: k-0001 (held out) did not run to "
                           "the end: timeout"),
              std::string::npos)
        << summary;
}

}  // namespace
}  // namespace gi
