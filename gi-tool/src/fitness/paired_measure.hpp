#pragma once
// Two genomes measured side by side, [reference, candidate] in one batch, `repeats` batches: what
// minimisation compares an item's removal with and confirming the best re-measures a candidate
// against the original with (run/confirm_best.hpp). Each batch times both under the same GPU state
// (clocks, neighbours, temperature), so a drift between batches moves both; the batches' timings are
// kept one by one for the statistics of their medians (minimise.hpp: combine_repeats, median_error).
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"

namespace gi {

struct PairedSide {
    // The first failure in any batch (a variant that fails once is not a variant to keep), and the
    // largest error seen.
    EvalStatus status = EvalStatus::Ok;
    std::string detail;
    double error = 0;
    std::vector<Timing> batches;  // one per batch, in order (invalid where it gave no timing)
};

struct PairedMeasure {
    PairedSide reference, candidate;
};

// Evaluates {reference, candidate} on `case_index` max(1, repeats) times.
PairedMeasure measure_pair(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                           Evaluator& evaluator, int case_index, int repeats);

}  // namespace gi
