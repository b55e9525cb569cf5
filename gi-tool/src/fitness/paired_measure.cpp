#include "fitness/paired_measure.hpp"

#include <algorithm>
#include <cmath>

#include "fitness/acceptance.hpp"
#include "fitness/scored.hpp"
#include "util/median.hpp"

namespace gi {
namespace {

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

void add(PairedSide& into, const PairedSide& from) {
    if (into.status == EvalStatus::Ok && from.status != EvalStatus::Ok) {
        into.status = from.status;
        into.detail = from.detail;
    }
    into.error = std::max(into.error, from.error);
    into.batches.insert(into.batches.end(), from.batches.begin(), from.batches.end());
}

// Whether another round could change the answer: both sides ran and kept their error, and the
// `slower` side is slower by more than one but not more than k x the medians' combined uncertainty.
// Within one, the difference is what noise gives (most useless items) and is settled at once.
bool undecided(const PairedMeasure& m, double k, SlowerSide slower) {
    const PairedSummary ref = summarise(m.reference), cand = summarise(m.candidate);
    if (ref.status != EvalStatus::Ok || cand.status != EvalStatus::Ok || cand.error > ref.error) return false;
    if (!ref.time.valid() || !cand.time.valid()) return false;
    const PairedSummary& slow = slower == SlowerSide::Candidate ? cand : ref;
    const PairedSummary& fast = slower == SlowerSide::Candidate ? ref : cand;
    return slower_beyond_uncertainty(slow.time, slow.median_error_ms, fast.time, fast.median_error_ms, 1.0) &&
           !slower_beyond_uncertainty(slow.time, slow.median_error_ms, fast.time, fast.median_error_ms, k);
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


PairedMeasure measure_pair(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                           Evaluator& evaluator, int case_index, int repeats) {
    PairedMeasure measured;
    measured.rounds = 1;
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

PairedSummary summarise(const PairedSide& side) {
    PairedSummary s;
    s.status = side.status;
    s.detail = side.detail;
    s.error = side.error;
    s.time = combine_repeats(side.batches);
    s.median_error_ms = median_error(side.batches);
    return s;
}

PairedMeasure measure_pair_until_decided(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                                         Evaluator& evaluator, int case_index, int repeats, double k, SlowerSide slower,
                                         const Deadline& deadline) {
    double start = deadline.now();
    PairedMeasure measured = measure_pair(reference, candidate, grammar, evaluator, case_index, repeats);
    double round_s = deadline.now() - start;
    while (measured.rounds < kMaxPairRounds && undecided(measured, k, slower) && !deadline.passed() &&
           deadline.fits(round_s)) {
        start = deadline.now();
        const PairedMeasure more = measure_pair(reference, candidate, grammar, evaluator, case_index, repeats);
        round_s = deadline.now() - start;
        add(measured.reference, more.reference);
        add(measured.candidate, more.candidate);
        ++measured.rounds;
    }
    return measured;
}

}  // namespace gi
