#pragma once
// The genome a run ships (issue 3). Minimisation and tuning measured speed only, and search saw only
// the training cases, so the genome shipped must also pass the sanitizer (on a training case, the
// whole case, not a gate case) and held-out validation. The candidates are tried along the way the
// genome was made (post-tuned, minimised, evolved, parameters alone, the starting genome) until one
// passes both; the original kernel (the empty genome) is the last resort and passes by definition.
#include <functional>
#include <string>
#include <vector>

#include "evaluate/variant_checker.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "run/run_record.hpp"
#include "util/deadline.hpp"

namespace gi {

struct FinalChoice {
    Genome genome;  // the first candidate that passed both; empty (the original kernel) when none did
    FinalCheckRecord check;
};

// `candidates` in order of preference; an empty genome ends the list (the original needs no check).
// `progress` hears which candidate is being validated. The first candidate is always checked (it is
// what the run made); a later one only while `deadline` (evolve --time-limit) has not passed and a
// check as long as the last one still fits before it: otherwise the original kernel ships and the
// note says the time limit stopped the checks.
FinalChoice choose_final_genome(const std::vector<Genome>& candidates, VariantChecker& checker, const Grammar& grammar,
                                int case_index, const std::function<void(const std::string&)>& progress,
                                const Deadline& deadline = {});

// The run record's words for a validation: what was validated, and when it did not pass, why, case
// by case, first ("1 of 3 cases did not pass: ...; validated 3 cases ..."), so no summary says
// "failed" beside counts that passed.
std::string validation_record_summary(const ValidationReport& report);

// Why a candidate was given up after validation: "held-out validation: 1 of 3 cases did not pass:
// k-0002 (held out) did not run to the end: timeout (...)".
std::string validation_refusal(const std::string& genome, const ValidationReport& report);

}  // namespace gi
