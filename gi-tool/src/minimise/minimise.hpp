#pragma once
// Post-evolution clean-up (seeds 000 8.11, 001 4.3): knock out the evolved genome's items one at a
// time, left to right (gene settings reset to their defaults, then edits removed), and keep each
// removal unless the variant without it is slower than the evolved one by more than k times the
// measured noise, gains error, or stops working. Items kept because removing them failed or added
// error are tried again after a pass that removed something (they may have propped up an item
// that is gone now), until a pass removes nothing. All measurements are on one fixed case; each
// comparison evaluates the evolved genome and the candidate together `repeats` times.
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
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

// Median of the medians of repeated evaluations, with a spread that is the larger of the typical
// within-run spread and the spread between runs (1.4826 x MAD), so slow drift counts as noise.
Timing combine_repeats(const std::vector<Timing>& timings);

MinimiseResult minimise(const Genome& evolved, const Grammar& grammar, Evaluator& evaluator, int case_index,
                        const MinimiseOptions& options);

}  // namespace gi
