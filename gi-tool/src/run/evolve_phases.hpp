#pragma once
// The phases evolve() walks (CheckpointPhase), one function each, in a file of its own. Each takes
// the run from its phase to the next and saves the checkpoint there, so a run killed at any point
// resumes at the phase it was in and ends as the uninterrupted run does.
#include "run/evolve_run.hpp"

namespace gi {

// Start -> Search (run/start_phase.cpp): pre-tunes the parameters from the start genome and breeds
// the first population.
void start_phase(EvolveRun& run);

// Search -> Searched (run/search_phase.cpp): generations until a stop rule (generations, stagnation,
// time limit), then the best confirmed on every training case (run/confirm_best.hpp).
void search_phase(EvolveRun& run);

// Searched -> Finished (run/finish_phase.cpp): minimises the best, post-tunes it and chooses the
// final genome by the checker's final checks.
void finish_phase(EvolveRun& run);

// The phases in the order a run goes through them: each leaves the run in the next one's `from`.
struct EvolvePhase {
    CheckpointPhase from;
    void (*run)(EvolveRun& run);
};
inline constexpr EvolvePhase kEvolvePhases[] = {
    {CheckpointPhase::Start, start_phase},
    {CheckpointPhase::Search, search_phase},
    {CheckpointPhase::Searched, finish_phase},
};

}  // namespace gi
