#include "fitness/paired_measure.hpp"

#include <algorithm>

#include "fitness/scored.hpp"

namespace gi {

PairedMeasure measure_pair(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                           Evaluator& evaluator, int case_index, int repeats) {
    PairedMeasure measured;
    for (int r = 0; r < std::max(1, repeats); ++r) {
        const ScoredBatch batch = evaluate_genomes(evaluator, grammar, {reference, candidate}, case_index, {});
        for (int which = 0; which < 2; ++which) {
            const EvalResult& result = batch.scored[static_cast<std::size_t>(which)].result;
            PairedSide& side = which == 0 ? measured.reference : measured.candidate;
            if (result.status != EvalStatus::Ok && side.status == EvalStatus::Ok) {
                side.status = result.status;
                side.detail = result.detail;
            }
            side.error = std::max(side.error, result.error);
            side.batches.push_back(result.time);
        }
    }
    return measured;
}

}  // namespace gi
