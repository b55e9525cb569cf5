#pragma once
// An evaluated genome: what search, selection and the run record know about one individual.
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "fitness/acceptance.hpp"

namespace gi {

struct Scored {
    Genome genome;
    EvalResult result;
    bool accepted = false;  // may be a parent (see acceptance.hpp)
    double speedup = 0;     // original / variant on the same case; 0 when not timed
    bool repeat = false;    // same program as an earlier member of its batch: measured once, copied
    double temperature = 0; // anneal: the temperature of the draw that made it (0: not drawn)
    bool failed_gate = false;  // was accepted, then failed the sanitizer gate (run/gate.hpp)
};

struct ScoredBatch {
    int case_index = 0;
    Timing original;
    std::vector<Scored> scored;  // in the order of the genomes given
    int distinct = 0;            // programs actually sent to the evaluator
};

// Applies each genome, sends each distinct program (by Variant::key) to the evaluator once, and
// scores the results against the original on the same case. A genome that does not apply is
// recorded as a compile error with the reason, never sent.
ScoredBatch evaluate_genomes(Evaluator& evaluator, const Grammar& grammar, const std::vector<Genome>& genomes,
                             int case_index, const AcceptanceRule& rule);

}  // namespace gi
