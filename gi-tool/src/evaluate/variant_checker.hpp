#pragma once
// The correctness gate an evaluator may offer beyond Evaluator::evaluate (the cuda evaluator's:
// compute-sanitizer and validation on cases search never used), as an interface so search and the
// CLI can use it without depending on CUDA:
//
//   if (VariantChecker* checker = evaluator.checker()) {
//       // before a variant becomes a parent or is cached:
//       EvalResult gate = checker->sanitize(variant, checker->gate_case(case_index));  // Ok or SanitizerError/Crash/Timeout
//       // once, for the final variant:
//       ValidationReport report = checker->validate(variant);
//   }
//
// sanitize_many() runs the variants once under compute-sanitizer memcheck, and also racecheck and
// synccheck when a variant has fewer __syncthreads() than the original (a barrier was removed).
// Results are cached per variant key, so asking again is free.
//
// Its calls may come from another thread while evaluate() runs (anneal's master gates the parents
// it draws while its workers evaluate): a checker keeps the two apart itself, as far as they
// cannot share the GPU or its own state, so decorators of the evaluator (a lock, the history's
// cache) hand out the checker as it is.
#include <cstdint>
#include <exception>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"

namespace gi {

struct CaseValidation {
    std::string case_path;
    bool held_out = false;          // from the user's held-out folder (else a training case never drawn)
    EvalStatus status = EvalStatus::Ok;
    std::uint64_t elements = 0;     // output elements compared
    std::uint64_t mismatches = 0;   // beyond tolerance
    double worst_error = 0;         // largest |original - variant| over the case's outputs
    double error = 0;               // the error measure (mean penalty per element)
    std::string detail;
};

struct ValidationReport {
    std::vector<CaseValidation> cases;
    std::uint64_t elements = 0;
    std::uint64_t mismatches = 0;
    double worst_error = 0;
    std::string built_by;           // how the validated binary was compiled ("nvcc, the whole file"); "" from fakes
    bool passed() const;            // every case Ok with no mismatch beyond tolerance
    std::string summary() const;    // "validated 5 cases (3 held out): 1234567 elements, 0 beyond tolerance, worst error 0"
    // Why it did not pass, naming each case that did not and what happened there ("" when it
    // passed): "1 of 3 cases did not pass: k-0002 (held out) did not run to the end: timeout (...)".
    // Timing is not judged here: a case passes on its outputs alone.
    std::string failure() const;
};

class VariantChecker {
public:
    virtual ~VariantChecker() = default;

    // ---- the checks
    // The gate for several variants on one case, one result each in order.
    virtual std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) = 0;
    // The same, started now and finished in the background when the checker can run its checks
    // while evaluate() works (checks_alongside_evaluation()); the default checks before returning.
    // Until the future is ready the caller asks the checker nothing else, and the evaluator only
    // evaluate(). Errors come out of the future's get().
    virtual std::future<std::vector<EvalResult>> sanitize_many_async(const std::vector<Variant>& variants, int case_index);
    // Every training case never used by evaluate() plus every held-out case.
    virtual ValidationReport validate(const Variant& variant) = 0;
    // One variant through sanitize_many().
    EvalResult sanitize(const Variant& variant, int case_index);
    // A first check, fast and able only to reject (the cuda evaluator's guard zones: milliseconds
    // a variant, where its memcheck takes seconds): the verdict of each variant it rejects, which
    // is final (sanitize_many() gives the same), and nullopt for the others; the default checks
    // nothing. Search breeds its guess at the next generation without the rejected ones
    // (run/gate_overlap.hpp). Called only when no checks run in the background.
    virtual std::vector<std::optional<EvalResult>> prescreen(const std::vector<Variant>& variants, int case_index) {
        (void)case_index;
        return std::vector<std::optional<EvalResult>>(variants.size());
    }

    // ---- what it is
    // Whether sanitize_many_async's checks run alongside evaluate() (issue 19: search then evaluates
    // its guess at the next generation while the gate runs). Such a checker keeps the two from
    // running kernels at once, so no variant is timed beside a sanitizer's launches; what that cost
    // evaluation is in the evaluator's report (EvaluatorReport::delayed_by_checks_s).
    virtual bool checks_alongside_evaluation() const { return false; }
    // The case the search's gate checks a would-be parent on, when its generation was judged on
    // `case_index`: that case, or one of the small cases recorded for the gate (issue 19: memcheck
    // of a 385 MB case takes seconds a variant). The final checks ask for the case itself.
    virtual int gate_case(int case_index) const { return case_index; }
    // The cases recorded for the gate alone (--sanitize-cases), every one: the final checks run
    // the chosen variant on each, where the search's gate checked each parent on one of them in
    // turn (a recording of several launches is several cases, and a stray access may come in one).
    virtual std::vector<int> gate_only_cases() const { return {}; }

    // ---- what the search does next (run/gate_overlap.hpp); none of these changes a result
    // Search is about to gate variants: a checker may get ready now (start its sanitizer processes,
    // whose start-up then overlaps the search's first evaluations).
    virtual void expect_checks() {}
    // Variants evaluate() will probably be asked for next (the search's guess at its next
    // generation while the gate runs): an evaluator that compiles may start on them now, so their
    // builds are ready or under way when they come.
    virtual void prepare_ahead(const std::vector<Variant>& variants) { (void)variants; }
    // A batch evaluate() ran on `case_index` was thrown away unseen (a guess at the next generation
    // that the gate spoiled): the case counts as used by search only if another batch used it, so
    // validate() still runs on a training case search never looked at.
    virtual void discard_evaluation(int case_index) { (void)case_index; }
};

}  // namespace gi
