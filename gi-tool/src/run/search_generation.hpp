#pragma once
// One generation of the search phase (run/search_phase.cpp): evaluated (whole, or in parts the
// time limit can stop: run/generation_parts.hpp), gated (run/gate_overlap.hpp), recorded, bred and
// checkpointed, with its progress line.
#include <string>

#include "run/evolve_run.hpp"
#include "run/gate_overlap.hpp"
#include "util/deadline.hpp"

namespace gi {

// How the search's generations fit its deadline. A generation expected to end by it (to take as
// long as the last one, its evaluation and gate) is evaluated whole. One expected to end past it,
// or whose time is not known yet (the first in this session), is evaluated in parts that the
// deadline can stop; it starts only while one variant is expected to fit. The guess at the next
// generation is evaluated only when that generation fits, judged when it would start (as the gate
// starts), so a run is the same with or without the overlap.
struct SearchPace {
    Deadline deadline;             // the search's
    double last_generation_s = 0;  // the last generation's evaluation and gate
    double seconds_a_genome = -1;  // a generation's evaluation per individual; < 0: none measured yet

    // Whether a generation expected to take `expected_s` from now ends by the deadline.
    bool fits(double expected_s) const { return !deadline.passed() && deadline.fits(expected_s); }
};

struct GenerationEnd {
    // The time limit stopped the generation part of the way: the search ends with it, and its
    // population was not bred (RunRecord::stop_reason says so).
    bool stopped = false;
    // What its step that could not be interrupted took, for the search's overrun note.
    std::string overrun_cause;
};

// Runs generation run.state.next_generation on a case drawn from run.rng, and saves the checkpoint
// after it unless the time limit stopped it.
GenerationEnd search_generation(EvolveRun& run, GateOverlap& gate, SearchPace& pace);

}  // namespace gi
