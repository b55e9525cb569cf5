#pragma once
// Before minimisation: the best must be right on every training case, not only on the one its
// generation was judged on; a "best" that one case vouches for would be minimised and offered to
// the final check in place of a correct one. Otherwise the next fastest accepted individual is
// tried (kMaxConfirmations in all); when none holds, the search found nothing. Done once, after the
// search, so it costs no search time (asynchronous strategies keep every worker busy).
#include <functional>
#include <string>

#include "evaluate/evaluator.hpp"
#include "fitness/acceptance.hpp"
#include "grammar/grammar.hpp"
#include "run/run_record.hpp"
#include "util/deadline.hpp"

namespace gi {

inline constexpr int kMaxConfirmations = 8;

// Sets record.best to the fastest accepted individual of record.generations that is right on
// every training case (record.best.found false when none of those tried is), counting the refused
// ones in record.best.refused. The first candidate is always checked; a later one only before
// `deadline` (the time limit): when it stops the confirmation, the best is one that was confirmed
// or none, never an unconfirmed one. With one training case there is nothing to confirm.
void confirm_best(RunRecord& record, Evaluator& evaluator, const Grammar& grammar, const AcceptanceRule& rule,
                  const Deadline& deadline, const std::function<void(const std::string&)>& progress);

}  // namespace gi
