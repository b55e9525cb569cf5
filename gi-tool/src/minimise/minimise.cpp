#include "minimise/minimise.hpp"

#include <algorithm>
#include <cmath>

#include "fitness/acceptance.hpp"
#include "genome/genome_ops.hpp"
#include "fitness/scored.hpp"
#include "util/median.hpp"

namespace gi {
namespace {

struct Measured {
    EvalStatus status = EvalStatus::Ok;
    double error = 0;
    std::string detail;
    Timing time;
    double median_error_ms = NAN;
};

// Evaluates [reference, candidate] `repeats` times on the case; a failure in any repeat counts.
std::pair<Measured, Measured> measure_pair(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                                           Evaluator& evaluator, int case_index, int repeats) {
    std::vector<Timing> ref_times, cand_times;
    Measured ref, cand;
    for (int r = 0; r < std::max(1, repeats); ++r) {
        const ScoredBatch batch = evaluate_genomes(evaluator, grammar, {reference, candidate}, case_index, {});
        for (int which = 0; which < 2; ++which) {
            const EvalResult& result = batch.scored[static_cast<std::size_t>(which)].result;
            Measured& m = which == 0 ? ref : cand;
            if (result.status != EvalStatus::Ok && m.status == EvalStatus::Ok) {
                m.status = result.status;
                m.detail = result.detail;
            }
            m.error = std::max(m.error, result.error);
            (which == 0 ? ref_times : cand_times).push_back(result.time);
        }
    }
    ref.time = combine_repeats(ref_times);
    cand.time = combine_repeats(cand_times);
    ref.median_error_ms = median_error(ref_times);
    cand.median_error_ms = median_error(cand_times);
    return {ref, cand};
}

// What combine_repeats and median_error share: the evaluations' medians and their dispersions.
struct Repeats {
    bool valid = false;
    std::size_t count = 0;   // evaluations (R)
    int repetitions = 0;     // over all of them
    double median_ms = NAN;  // of their medians
    double between = 0;      // 1.4826 x MAD of their medians (0 for one)
    double within = 0;       // the median of their own spreads
};

Repeats summarise_repeats(const std::vector<Timing>& timings) {
    Repeats r;
    std::vector<double> medians, spreads;
    for (const Timing& t : timings) {
        if (!t.valid()) return r;
        medians.push_back(t.median_ms);
        if (std::isfinite(t.spread_ms)) spreads.push_back(t.spread_ms);
        r.repetitions += t.repetitions;
    }
    if (medians.empty()) return r;
    r.valid = true;
    r.count = medians.size();
    r.median_ms = median_of(medians);
    std::vector<double> deviations;
    for (double m : medians) deviations.push_back(std::fabs(m - r.median_ms));
    r.between = medians.size() > 1 ? 1.4826 * median_of(deviations) : 0.0;
    r.within = spreads.empty() ? 0.0 : median_of(spreads);
    return r;
}

}  // namespace

Timing combine_repeats(const std::vector<Timing>& timings) {
    const Repeats r = summarise_repeats(timings);
    Timing combined;
    if (!r.valid) return combined;
    combined.median_ms = r.median_ms;
    combined.spread_ms = std::max(r.between, r.within);
    combined.repetitions = r.repetitions;
    return combined;
}

double median_error(const std::vector<Timing>& timings) {
    const Repeats r = summarise_repeats(timings);
    if (!r.valid) return NAN;
    const double spread = std::max(r.between, r.within);  // combine_repeats' spread
    if (r.count < 2) return spread;
    // sqrt(pi / 2): a median of n samples of normal noise varies 1.2533 x as much as their mean.
    const double within = r.within * 1.2533 / std::sqrt(std::max(1, r.repetitions));
    const double between = r.between / std::sqrt(static_cast<double>(r.count));
    // What neither measures (an effect of the order within an evaluation, the same in each: the
    // evolved genome is listed first; a dispersion of 2 or 3 medians near zero by chance) is taken
    // as at least kMedianErrorFloor of the median, but never beyond the spread of single samples:
    // the rule is never stricter than comparing those, as it did before.
    const double floor = std::min(kMedianErrorFloor * std::fabs(r.median_ms), spread);
    return std::max({between, within, floor});
}

MinimiseResult minimise(const Genome& evolved, const Grammar& grammar, Evaluator& evaluator, int case_index,
                        const MinimiseOptions& options) {
    MinimiseResult result;
    result.case_index = case_index;
    result.before = result.after = genome_to_text(evolved);
    if (!evaluator.traits().measures_time) {
        result.note = "not run: the " + evaluator.name() + " evaluator gives no timings to compare";
        return result;
    }
    if (genome_item_count(evolved) == 0) {
        result.note = "not run: the genome is empty";
        return result;
    }
    Genome current = evolved;
    // One pass knocks items out left to right. An item may be needed only because of another one
    // (a copy of a statement that a later edit deletes): while the other stays, removing the first
    // fails or adds error; once the other is removed, it is dead weight. So items kept for failing
    // or adding error are tried again, in further passes, for as long as a pass removes something.
    // `retry` follows `current`'s items: whether each was kept for such a reason.
    std::vector<bool> retry;
    double last_comparison_s = 0;
    for (int pass = 1;; ++pass) {
        const std::vector<std::string> items = genome_items(current);
        const std::vector<bool> tried = pass == 1 ? std::vector<bool>(items.size(), true) : retry;
        retry.clear();
        bool removed_any = false;
        // `index` walks `current`, which loses the removed items, so left-to-right order is kept.
        std::size_t index = 0;
        for (std::size_t k = 0; k < items.size(); ++k) {
            if (!tried[k]) {
                retry.push_back(false);
                ++index;
                continue;
            }
            if (options.deadline.passed() || !options.deadline.fits(last_comparison_s)) {
                result.stopped = true;
                break;
            }
            const Genome candidate = without_item(current, index);
            const double comparison_start = options.deadline.now();
            auto [ref, cand] = measure_pair(evolved, candidate, grammar, evaluator, case_index, options.repeats);
            last_comparison_s = options.deadline.now() - comparison_start;
            if (!result.ran) {
                result.before_time = ref.time;
                if (ref.status != EvalStatus::Ok) {
                    result.note = "not run: the evolved genome fails on case " + std::to_string(case_index) + " (" +
                                  to_string(ref.status) + ": " + ref.detail + ")";
                    return result;
                }
                result.ran = true;
            }
            MinimiseStep step;
            step.item = items[k];
            step.pass = pass;
            step.reference = ref.time;
            step.candidate = cand.time;
            step.reference_error_ms = ref.median_error_ms;
            step.candidate_error_ms = cand.median_error_ms;
            step.status = cand.status;
            step.error = cand.error;
            bool dependent = false;
            if (cand.status != EvalStatus::Ok) {
                step.reason = "kept: without it the variant fails (" + to_string(cand.status) + ")";
                dependent = true;
            } else if (cand.error > ref.error) {
                step.reason = "kept: without it the error grows";
                dependent = true;
            } else if (slower_beyond_uncertainty(cand.time, cand.median_error_ms, ref.time, ref.median_error_ms,
                                                 options.k)) {
                step.reason = "kept: without it the variant is slower by more than k x the medians' uncertainty";
            } else {
                step.removed = true;
                step.reason = "removed: no loss beyond k x the medians' uncertainty";
            }
            if (step.removed) {
                current = candidate;
                removed_any = true;
            } else {
                retry.push_back(dependent);
                ++index;
            }
            result.steps.push_back(std::move(step));
        }
        if (result.stopped || !removed_any || std::find(retry.begin(), retry.end(), true) == retry.end()) break;
    }
    result.after = genome_to_text(current);
    if (result.stopped)
        result.note = (result.ran ? "stopped at the time limit after " + std::to_string(result.steps.size()) +
                                        (result.steps.size() == 1 ? " comparison" : " comparisons") +
                                        "; the removals made so far are kept"
                                  : "not run: the time limit left no time for a comparison");
    return result;
}

}  // namespace gi
