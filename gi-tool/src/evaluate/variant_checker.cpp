// The checker's defaults, and the validation report's judgement apart from the cuda evaluator that
// fills it, so search can ask a report whether it passed without depending on any CUDA code.
#include <filesystem>
#include <sstream>

#include "evaluate/variant_checker.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

bool case_passed(const CaseValidation& c) { return c.status == EvalStatus::Ok && c.mismatches == 0; }

// What went wrong on one case, in words: the case by name and kind, then the status and its
// detail, or the outputs beyond tolerance. Never a count that passed beside the word "failed".
std::string case_failure(const CaseValidation& c) {
    const std::string name = std::filesystem::path(c.case_path).filename().string();
    std::string out = (name.empty() ? std::string("a case") : name) +
                      (c.held_out ? " (held out)" : " (a training case search never drew)");
    if (c.status != EvalStatus::Ok) {
        out += c.status == EvalStatus::WrongAnswer ? " gave wrong outputs: " : " did not run to the end: ";
        out += to_string(c.status);
        if (!c.detail.empty()) out += " (" + excerpt(c.detail, 200) + ")";
        return out;
    }
    std::ostringstream counts;
    counts << c.mismatches << " of " << c.elements << " output elements beyond tolerance, worst error " << c.worst_error;
    return out + ": " + counts.str();
}

}  // namespace

bool ValidationReport::passed() const {
    for (const auto& c : cases)
        if (!case_passed(c)) return false;
    return true;
}

std::string ValidationReport::failure() const {
    constexpr std::size_t kNamed = 3;  // cases named; the rest counted
    std::size_t failed = 0;
    std::string named;
    for (const auto& c : cases) {
        if (case_passed(c)) continue;
        if (++failed <= kNamed) named += (named.empty() ? "" : "; ") + case_failure(c);
    }
    if (failed == 0) return "";
    std::string out = std::to_string(failed) + " of " + std::to_string(cases.size()) +
                      (cases.size() == 1 ? " case" : " cases") + " did not pass: " + named;
    if (failed > kNamed) out += "; and " + std::to_string(failed - kNamed) + " more";
    return out;
}

std::string ValidationReport::summary() const {
    int held = 0;
    for (const auto& c : cases) held += c.held_out ? 1 : 0;
    std::ostringstream out;
    out << "validated " << cases.size() << " case(s) (" << held << " held out): " << elements << " output elements, "
        << mismatches << " beyond tolerance, worst error " << worst_error << (built_by.empty() ? "" : ", built by " + built_by);
    if (!passed()) out << " -- " << failure();
    return out.str();
}

std::future<std::vector<EvalResult>> VariantChecker::sanitize_many_async(const std::vector<Variant>& variants, int case_index) {
    std::promise<std::vector<EvalResult>> done;
    try {
        done.set_value(sanitize_many(variants, case_index));
    } catch (...) {
        done.set_exception(std::current_exception());
    }
    return done.get_future();
}

EvalResult VariantChecker::sanitize(const Variant& variant, int case_index) {
    std::vector<EvalResult> results = sanitize_many({variant}, case_index);
    if (results.size() != 1)
        throw Error("the correctness gate returned " + std::to_string(results.size()) + " verdicts for one variant");
    return std::move(results.front());
}

}  // namespace gi
