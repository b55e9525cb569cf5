#pragma once
// The correctness gates the cuda evaluator offers beyond Evaluator::evaluate, as an interface so
// search and the CLI can use them without depending on CUDA:
//
//   if (auto* checker = dynamic_cast<VariantChecker*>(&evaluator)) {
//       // before a variant becomes a parent or is cached:
//       EvalResult gate = checker->sanitize(variant, case_index);   // Ok or SanitizerError/Crash/Timeout
//       // once, for the final variant:
//       ValidationReport report = checker->validate(variant);
//   }
//
// sanitize() runs the variant once under compute-sanitizer memcheck, and also racecheck and
// synccheck when the variant has fewer __syncthreads() than the original (a barrier was removed).
// Results are cached per variant key, so asking again is free.
#include <cstdint>
#include <exception>
#include <future>
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
    virtual EvalResult sanitize(const Variant& variant, int case_index) = 0;
    // The gate for several variants on one case, one result each in order. Checkers that can run
    // several compute-sanitizer processes at once override it; the default asks one at a time.
    virtual std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) {
        std::vector<EvalResult> results;
        results.reserve(variants.size());
        for (const Variant& variant : variants) results.push_back(sanitize(variant, case_index));
        return results;
    }
    // The same, started now and finished in the background when the checker can run its checks
    // while evaluate() works (checks_alongside_evaluation()); the default checks before returning.
    // Until the future is ready the caller asks the checker nothing else, and the evaluator only
    // evaluate(). Errors come out of the future's get().
    virtual std::future<std::vector<EvalResult>> sanitize_many_async(const std::vector<Variant>& variants, int case_index) {
        std::promise<std::vector<EvalResult>> done;
        try {
            done.set_value(sanitize_many(variants, case_index));
        } catch (...) {
            done.set_exception(std::current_exception());
        }
        return done.get_future();
    }
    // Whether sanitize_many_async's checks run alongside evaluate() (issue 19: search then evaluates
    // its guess at the next generation while the gate runs). Such a checker keeps the two from
    // running kernels at once, so no variant is timed beside a sanitizer's launches.
    virtual bool checks_alongside_evaluation() const { return false; }
    // Seconds evaluate() has waited, over the checker's life, for checks running alongside it to
    // leave the GPU; and how much later its batches ended for those waits (compiles go on during a
    // wait, so the runs after it catch up): the part of the gate that held evaluation back.
    virtual double evaluation_waited_for_checks_s() const { return 0; }
    virtual double evaluation_delayed_by_checks_s() const { return 0; }
    // Every training case never used by evaluate() plus every held-out case.
    virtual ValidationReport validate(const Variant& variant) = 0;
    // The case the search's gate checks a would-be parent on, when its generation was judged on
    // `case_index`: that case, or one of the small cases recorded for the gate (issue 19: memcheck
    // of a 385 MB case takes seconds a variant). The final checks ask for the case itself.
    virtual int gate_case(int case_index) const { return case_index; }
    // Search is about to gate variants: a checker may get ready now (start its sanitizer processes,
    // whose start-up then overlaps the search's first evaluations). Changes no verdict.
    virtual void expect_checks() {}
};

}  // namespace gi
