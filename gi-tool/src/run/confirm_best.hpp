#pragma once
// Before minimisation: the best must be right on every training case, not only on the one its
// generation was judged on; a "best" that one case vouches for would be minimised and offered to
// the final check in place of a correct one. Otherwise the next fastest accepted individual is
// tried (kMaxConfirmations in all); when none holds, the search found nothing.
//
// And it must be faster than the original when measured again. The search's best is the luckiest
// of thousands of single noisy measurements (the winner's curse): on H200 runs of microsecond
// kernels it was often noise (dp_sweep "3.17x" from a generation whose original was timed at
// 0.0108 ms against the usual 0.004-0.0047 ms; 15 of 21 runs then minimised the best down to the
// original). So, with an evaluator that times, the correct candidates, fastest first, at most one
// from each generation (a badly timed original inflates its whole generation), are re-measured
// against the original: kSpeedConfirmations of them, each in rounds of kConfirmRepeats paired
// batches [original, candidate] on its own generation's case, another round while a gain is within
// the noise (fitness/paired_measure.hpp: kMaxPairRounds). The best is the one with the highest
// re-measured speedup among those faster than the original by more than kConfirmNoiseK times the
// combined uncertainty of the two medians (fitness/paired_measure.hpp's median_error); none such: no best.
// Done once, after the search, inside the time limit's share for it (RunPhase::Confirm): at most
// kSpeedConfirmations x kConfirmRepeats x kMaxPairRounds batches of two variants, on top of the
// correctness checks.
#include <functional>
#include <string>

#include "evaluate/evaluator.hpp"
#include "fitness/acceptance.hpp"
#include "grammar/grammar.hpp"
#include "run/run_record.hpp"
#include "util/deadline.hpp"

namespace gi {

inline constexpr int kMaxConfirmations = 8;
// Four candidates from four generations: the real 1.3-1.5x variants the H200 runs missed were in
// other generations than the fluke, and a fifth candidate seldom adds more than its 6 runs cost.
inline constexpr int kSpeedConfirmations = 4;
// Three paired batches: the fewest whose medians' dispersion (1.4826 x MAD) means anything, the
// same as minimisation's default --minimise-repeats.
inline constexpr int kConfirmRepeats = 3;
// A genome the search measured correct this many times or more is also a candidate by the median
// of those measurements (confirm_best.cpp: candidates_in_turn).
inline constexpr int kMedianEvaluations = 3;
// Three standard errors, as minimisation's default k: a candidate no faster than the original
// passes about once in a thousand, so four re-measured ones rarely let noise through.
inline constexpr double kConfirmNoiseK = 3;

// Sets record.best to the confirmed best of record.generations' accepted individuals (above);
// record.best.found false when none is right on every training case, or, when speed was
// re-measured, none is faster than the original beyond the noise (best.confirm_note says so).
// Refusals for a wrong case are counted in record.best.refused. The first candidate's correctness
// is always checked; every later check and every re-measurement only before `deadline`: when it
// stops the confirmation, the best is one that was confirmed or none, never an unconfirmed one;
// when it stops it before any re-measurement, the best is the fastest right one, as the search
// measured it, and best.confirm_note says so. With one training case there is nothing to check on
// other cases; with an evaluator that gives no timings, nothing to re-measure.
void confirm_best(RunRecord& record, Evaluator& evaluator, const Grammar& grammar, const AcceptanceRule& rule,
                  const Deadline& deadline, const std::function<void(const std::string&)>& progress);

}  // namespace gi
