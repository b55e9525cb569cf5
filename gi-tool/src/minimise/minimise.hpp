#pragma once
// Post-evolution clean-up (seeds 000 8.11, 001 4.3): knock out the evolved genome's items one at a
// time, left to right (gene settings reset to their defaults, then edits removed), and keep each
// removal unless the variant without it is slower than the evolved one by more than k times the
// combined uncertainty of the two medians (median_error), gains error, or stops working. Items
// kept because removing them failed or added error are tried again after a pass that removed
// something (they may have propped up an item that is gone now), until a pass removes nothing. All measurements are on one fixed case; each
// comparison evaluates the evolved genome and the candidate together `repeats` times, and again
// while the answer is within the noise (fitness/paired_measure.hpp: kMaxPairRounds rounds at most).
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "fitness/paired_measure.hpp"  // combine_repeats, median_error: what a comparison decides on
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "util/deadline.hpp"

namespace gi {

struct MinimiseOptions {
    double k = 3;      // --minimise-k
    int repeats = 3;   // --minimise-repeats
    // No comparison starts once this has passed, or when the last one, as long again, would end
    // after it (evolve --time-limit): the genome keeps the removals made so far.
    Deadline deadline;
};

struct MinimiseStep {
    std::string item;       // "BLOCK_W=128", "<_k.cu_12>"
    int pass = 1;           // 2 and on: an item kept earlier for failing or adding error, tried again
    bool removed = false;
    std::string reason;     // why it was kept or removed
    Timing reference;       // the evolved genome in the same evaluations
    Timing candidate;       // the current genome without the item
    // The uncertainty of each median (median_error), what the decision compared: the item stays
    // when candidate - reference > k x sqrt(candidate_error^2 + reference_error^2). NaN in records
    // from before it was kept (the rule then used the spreads).
    double reference_error_ms = NAN;
    double candidate_error_ms = NAN;
    EvalStatus status = EvalStatus::Ok;
    double error = 0;
};

struct MinimiseResult {
    bool ran = false;
    std::string note;        // why it did not run, or that the time limit stopped it
    int case_index = -1;
    std::string before;      // genome texts
    std::string after;
    Timing before_time;      // first measurement of the evolved genome
    std::vector<MinimiseStep> steps;
    bool stopped = false;    // the deadline ended it before every item was tried
};

MinimiseResult minimise(const Genome& evolved, const Grammar& grammar, Evaluator& evaluator, int case_index,
                        const MinimiseOptions& options);

}  // namespace gi
