#include "minimise/minimise.hpp"

#include <algorithm>
#include <cmath>

#include "fitness/acceptance.hpp"
#include "genome/genome_ops.hpp"
#include "fitness/paired_measure.hpp"

namespace gi {

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
            // Undecided comparisons (slower, but within k x the uncertainty) are measured again, up
            // to kMaxPairRounds rounds: the medians' uncertainty falls as the repeats add up.
            const PairedMeasure m = measure_pair_until_decided(evolved, candidate, grammar, evaluator, case_index,
                                                               options.repeats, options.k, SlowerSide::Candidate,
                                                               options.deadline);
            last_comparison_s = options.deadline.now() - comparison_start;
            const PairedSummary ref = summarise(m.reference), cand = summarise(m.candidate);
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
