#pragma once
// Two genomes measured side by side, [reference, candidate] in one batch, batch after batch: what
// minimisation compares an item's removal with and confirming the best re-measures a candidate
// against the original with (run/confirm_best.hpp). Each batch times both under the same GPU state
// (clocks, neighbours, temperature), so a drift between batches moves both; the batches' timings are
// kept one by one for the statistics of their medians (combine_repeats, median_error).
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "util/deadline.hpp"

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
    int rounds = 0;  // of `repeats` batches each (measure_pair_until_decided)
};

// Evaluates {reference, candidate} on `case_index` max(1, repeats) times.
PairedMeasure measure_pair(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                           Evaluator& evaluator, int case_index, int repeats);

// Median of the medians of repeated evaluations, with a spread that is the larger of the typical
// within-run spread and the spread between runs (1.4826 x MAD), so slow drift counts as noise.
Timing combine_repeats(const std::vector<Timing>& timings);

// The uncertainty (a standard error, in ms) of combine_repeats(timings).median_ms: the largest of
// the between-evaluation dispersion of the medians / sqrt(R), which includes drift between
// evaluations, the typical within-evaluation spread x 1.2533 / sqrt(all repetitions), the
// standard error of a median of normal noise, and kMedianErrorFloor of the median (for what
// neither measures), the last never beyond combine_repeats' spread, so it is never more than that
// spread. With one evaluation (R = 1) nothing measures drift, which averaging repetitions does not
// remove, so it is that spread, of single samples, as the rule was before. NaN when the timings
// are not all valid.
inline constexpr double kMedianErrorFloor = 0.005;
double median_error(const std::vector<Timing>& timings);


// A side's batches in one: its combined timing and that median's uncertainty.
struct PairedSummary {
    EvalStatus status = EvalStatus::Ok;
    std::string detail;
    double error = 0;
    Timing time;                 // combine_repeats
    double median_error_ms = 0;  // median_error
};
PairedSummary summarise(const PairedSide& side);

// Which side the question is about: is it slower than the other by more than k x the medians'
// combined uncertainty? Minimisation asks it of the genome without an item, confirming the best of
// the original.
enum class SlowerSide { Reference, Candidate };

// Rounds of measure_pair at most: a comparison still undecided after one round (that side slower
// by more than 1 but not more than k x the uncertainty) gets another round, while the deadline allows one as long
// again. Four rounds halve the uncertainty of one: on a 7.7-microsecond kernel whose single runs
// spread 10% (H200, elimination), 3 batches of 10 repetitions tell about 10% apart at k = 3, 12
// batches about 5%. Looking again only while undecided keeps the cost where it buys something; it
// raises the chance of keeping a useless item at k = 3 from about 0.1% to well under 1%.
inline constexpr int kMaxPairRounds = 4;

// measure_pair in rounds of `repeats` batches, until the answer is decided (a side failed or
// erred, the `slower` side is slower by at most 1 or by more than k x the medians' uncertainty),
// kMaxPairRounds rounds were made, or `deadline` leaves no time for another round as long as the
// last. The first round is always made.
PairedMeasure measure_pair_until_decided(const Genome& reference, const Genome& candidate, const Grammar& grammar,
                                         Evaluator& evaluator, int case_index, int repeats, double k, SlowerSide slower,
                                         const Deadline& deadline);

}  // namespace gi
