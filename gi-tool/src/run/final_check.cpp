#include "run/final_check.hpp"

#include <set>

#include "util/format.hpp"

namespace gi {
namespace {

// What was validated, in the run record's wording (ValidationReport::summary() words it for people
// at a terminal).
std::string validated_counts(const ValidationReport& r) {
    int held_out = 0;
    for (const CaseValidation& c : r.cases) held_out += c.held_out;
    return "validated " + std::to_string(r.cases.size()) + " cases (" + std::to_string(held_out) +
           " held out): " + std::to_string(r.elements) + " elements, " + std::to_string(r.mismatches) +
           " beyond tolerance, worst error " + exact(r.worst_error) + (r.built_by.empty() ? "" : ", built by " + r.built_by);
}

void add_note(FinalCheckRecord& check, const std::string& text) {
    check.note += (check.note.empty() ? "" : "; ") + text;
}

}  // namespace

std::string validation_record_summary(const ValidationReport& report) {
    if (report.passed()) return validated_counts(report);
    return report.failure() + "; " + validated_counts(report);
}

std::string validation_refusal(const std::string& genome, const ValidationReport& report) {
    return "gave up '" + genome + "': held-out validation: " + report.failure();
}

FinalChoice choose_final_genome(const std::vector<Genome>& candidates, VariantChecker& checker, const Grammar& grammar,
                                int case_index, const std::function<void(const std::string&)>& progress,
                                const Deadline& deadline) {
    FinalChoice choice;
    std::set<std::string> tried;
    ValidationReport report;
    bool validated = false;
    std::size_t to_check = 0;  // distinct candidates before the original
    {
        std::set<std::string> distinct;
        for (const Genome& candidate : candidates) {
            if (candidate.empty()) break;
            to_check += distinct.insert(genome_to_text(candidate)).second;
        }
    }
    double last_check_s = 0;
    for (const Genome& candidate : candidates) {
        if (candidate.empty()) break;
        if (tried.count(genome_to_text(candidate))) continue;
        if (!tried.empty() && (deadline.passed() || !deadline.fits(last_check_s))) {
            add_note(choice.check, "final checks stopped at the time limit after " + std::to_string(tried.size()) +
                                       " of " + std::to_string(to_check) + " candidates, so the original kernel ships");
            break;
        }
        tried.insert(genome_to_text(candidate));
        const double check_start = deadline.now();
        const Variant variant = make_variant(candidate, grammar);
        EvalResult gate = checker.sanitize(variant, case_index);
        std::string where;
        // And every case recorded for the gate: the search checked a parent on one of them.
        for (const int gate_case : checker.gate_only_cases()) {
            if (gate.status != EvalStatus::Ok) break;
            gate = checker.sanitize(variant, gate_case);
            where = " on gate case " + std::to_string(gate_case) + " (--sanitize-cases)";
        }
        if (gate.status != EvalStatus::Ok) {
            add_note(choice.check, "gave up '" + genome_to_text(candidate) + "': the sanitizer gate" + where + ": " +
                                       to_string(gate.status) + (gate.detail.empty() ? "" : " (" + gate.detail + ")"));
            last_check_s = deadline.now() - check_start;
            continue;
        }
        if (progress) progress("validating '" + genome_to_text(candidate) + "' on the cases search did not use");
        report = checker.validate(make_variant(candidate, grammar));
        last_check_s = deadline.now() - check_start;
        validated = true;
        if (report.cases.empty() || report.passed()) {
            choice.genome = candidate;
            break;
        }
        add_note(choice.check, validation_refusal(genome_to_text(candidate), report));
        validated = false;
    }
    if (!validated) report = checker.validate(make_variant(choice.genome, grammar));
    if (report.cases.empty()) {
        // Nothing to validate on is not a failure of the variant, but it is not a pass either.
        choice.check.ran = false;
        add_note(choice.check, "sanitizer passed; not validated: every training case was used by search and no "
                               "--held-out cases were given");
    } else {
        choice.check.ran = true;
        choice.check.passed = report.passed();
        choice.check.summary = validation_record_summary(report);
        choice.check.elements = static_cast<long long>(report.elements);
        choice.check.mismatches = static_cast<long long>(report.mismatches);
        choice.check.worst_error = report.worst_error;
    }
    return choice;
}

}  // namespace gi
