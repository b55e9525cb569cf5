#include "run/time_budget.hpp"

#include <algorithm>
#include <limits>

#include "util/format.hpp"

namespace gi {
namespace {

// The share of the limit one weight of a later phase holds back from the search.
constexpr double kShareAWeight = 0.05;
// Of the time left when pre-tuning starts, the part it may use when a search follows: tuning is
// a baseline for the search, not the run (a Black-Scholes build spent 80 s of 120 pre-tuning).
constexpr double kPreTuneShare = 0.2;

int weight(RunPhase phase) {
    switch (phase) {
        case RunPhase::Confirm: return 1;
        case RunPhase::Minimise: return 2;
        case RunPhase::PostTune: return 1;
        case RunPhase::FinalCheck: return 1;
        default: return 0;
    }
}

bool runs(const TimeBudget& b, RunPhase phase) {
    switch (phase) {
        case RunPhase::PreTune: return true;
        case RunPhase::Search: return b.search;
        case RunPhase::Confirm: return b.search && b.confirm;
        case RunPhase::Minimise: return b.search && b.minimise;
        case RunPhase::PostTune: return b.post_tune;
        case RunPhase::FinalCheck: return b.final_check;
    }
    return false;
}

// The weights of the phases from `first` on that will run.
int weights_from(const TimeBudget& b, RunPhase first) {
    int sum = 0;
    for (RunPhase p : {RunPhase::Confirm, RunPhase::Minimise, RunPhase::PostTune, RunPhase::FinalCheck})
        if (static_cast<int>(p) >= static_cast<int>(first) && runs(b, p)) sum += weight(p);
    return sum;
}

}  // namespace

std::string phase_name(RunPhase phase) {
    switch (phase) {
        case RunPhase::PreTune: return "pre-tuning";
        case RunPhase::Search: return "search";
        case RunPhase::Confirm: return "confirming the best";
        case RunPhase::Minimise: return "minimisation";
        case RunPhase::PostTune: return "post-tuning";
        case RunPhase::FinalCheck: return "final checks";
    }
    return "?";
}

// At most a minute: the CMake flow stops evolve at its time limit plus one minute (docs/cmake.md).
double TimeBudget::margin_s() const { return std::clamp(0.1 * limit_s, 10.0, 60.0); }

double TimeBudget::deadline(RunPhase phase, double now) const {
    if (!(limit_s > 0)) return std::numeric_limits<double>::infinity();
    const double search_end = limit_s - kShareAWeight * limit_s * weights_from(*this, RunPhase::Confirm);
    switch (phase) {
        case RunPhase::PreTune:
            return search ? now + kPreTuneShare * std::max(0.0, search_end - now) : search_end;
        case RunPhase::Search:
            return search_end;
        // A phase that starts past the limit (one before it ran over) must stop at once; its
        // deadline is its start, so that only its own time counts as running past it.
        case RunPhase::FinalCheck:
            return std::max(now, limit_s);
        default: {
            const int from = weights_from(*this, phase);
            if (from == 0) return std::max(now, limit_s);
            return now + std::max(0.0, limit_s - now) * weight(phase) / from;
        }
    }
}

std::string TimeBudget::overrun(RunPhase phase, double deadline, double ended, const std::string& cause) const {
    if (!(limit_s > 0) || !(ended > deadline + 1.0)) return "";
    return phase_name(phase) + " ran " + fixed(ended - deadline, 1) + " s past its deadline (second " +
           fixed(deadline, 0) + " of the " + fixed(limit_s, 0) + " s time limit)" + (cause.empty() ? "" : ": " + cause);
}

int generations_without_gain(const std::vector<GenerationRecord>& generations) {
    double reference = 0;  // the best when progress was last made
    int since = 0;
    for (const GenerationRecord& g : generations) {
        if (g.best_speedup > 0 && g.best_speedup >= reference * (1 + kStagnationGain) && g.best_speedup > reference) {
            reference = g.best_speedup;
            since = 0;
        } else {
            ++since;
        }
    }
    return since;
}

}  // namespace gi
