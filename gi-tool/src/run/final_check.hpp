#pragma once
// The genome a run ships (issue 3). Minimisation and tuning measured speed only, and search saw only
// the training cases, so the genome shipped must also pass the sanitizer (on a training case, the
// whole case, not a gate case) and held-out validation. The candidates are tried along the way the
// genome was made (post-tuned, minimised, evolved, parameters alone, the starting genome) until one
// passes both; the original kernel (the empty genome) is the last resort and passes by definition.
#include <functional>
#include <string>
#include <vector>

#include "evaluate/cuda_checker.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "run/run_record.hpp"

namespace gi {

struct FinalChoice {
    Genome genome;  // the first candidate that passed both; empty (the original kernel) when none did
    FinalCheckRecord check;
};

// `candidates` in order of preference; an empty genome ends the list (the original needs no check).
// `progress` hears which candidate is being validated.
FinalChoice choose_final_genome(const std::vector<Genome>& candidates, VariantChecker& checker, const Grammar& grammar,
                                int case_index, const std::function<void(const std::string&)>& progress);

}  // namespace gi
