#pragma once
// When a run stops (issue 40): `evolve --time-limit T` is the budget of the whole run, from the
// command's start (reading the cases, starting workers, the oracle gate) to the run record. Every
// phase gets a deadline on the run's clock and stops at a safe point once it has passed it,
// keeping its best so far (docs/evaluation.md, "The time limit"):
//   pre-tuning    20% of the time left when it starts, when a search follows; else all of it but
//                 the later phases' share
//   search        until T less the later phases' share: 5% of T for each weight of a phase that
//                 will run (confirming the best 1, minimising 2, post-tuning 1, final checks 1)
//   later phases  the time left when each starts, shared by those weights; final checks until T
// A step no phase can interrupt (one part of a generation: run/generation_parts.hpp; one tuning
// batch, one minimisation comparison, the final check of the first candidate) may end past its
// deadline; so the run may end past T by margin_s(), and a phase that ends later than its deadline
// is named with how far.
//
// Without --generations, a search with a time limit runs until its deadline or until it
// stagnates: `stagnation` generations in a row without a best at least 1% faster than the best
// before them (generations_without_gain).
#include <string>
#include <vector>

#include "run/run_record.hpp"

namespace gi {

enum class RunPhase { PreTune, Search, Confirm, Minimise, PostTune, FinalCheck };

std::string phase_name(RunPhase phase);  // "pre-tuning", "search", ... as the summary words them

struct TimeBudget {
    double limit_s = 0;  // 0: no time limit; every deadline is infinite
    // The phases that will run (or may: minimisation needs an accepted variant), so that only
    // their share is held back from the search.
    bool search = true;
    bool confirm = true;
    bool minimise = true;
    bool post_tune = true;
    bool final_check = true;

    // How far past limit_s a run may end: 10% of the limit, at least 10 s and at most 60 s.
    double margin_s() const;
    // The run second by which `phase`, starting at run second `now`, must end.
    double deadline(RunPhase phase, double now) const;
    // "" when `ended` is within a second of `deadline`; else what the summary says: "pre-tuning
    // ran 8.2 s past its deadline (second 18 of the 90 s time limit): <cause>".
    std::string overrun(RunPhase phase, double deadline, double ended, const std::string& cause) const;
};

// The relative gain a generation's best must bring to count as progress for the stagnation rule.
inline constexpr double kStagnationGain = 0.01;

// The generations at the end of `generations` since the last one whose best was at least
// kStagnationGain faster than the best before it (all of them when none was).
int generations_without_gain(const std::vector<GenerationRecord>& generations);

}  // namespace gi
