#pragma once
// The time accounting of one evolve() run, in one place: the run's clock, where each phase's wall
// time goes (RunRecord::pre_tune_seconds ...), and the time limit's deadlines and overruns
// (run/time_budget.hpp does the plan's arithmetic). A phase asks for its Deadline as it starts,
// marks when its work starts, charges what the work took, and asks whether it overran: the
// watchdog's word then goes out once, as a progress line and as the text for the phase's note.
#include <chrono>
#include <functional>
#include <string>

#include "evaluate/evaluator.hpp"
#include "grammar/grammar.hpp"
#include "run/time_budget.hpp"
#include "util/deadline.hpp"

namespace gi {

struct EvolveOptions;

// The time limit's plan for a run: only the phases that will run (or may) hold time back.
// `final_check`: the evaluator offers the final checks (a VariantChecker).
TimeBudget run_time_budget(const EvolveOptions& options, const Grammar& grammar, const Evaluator& evaluator,
                           bool final_check);

class RunBudget {
public:
    // `clock`: seconds on the run's clock (EvolveHooks::clock); empty: a steady clock from now.
    // `progress`: where the line about an overrun goes (may be empty).
    RunBudget(std::function<double()> clock, std::function<void(const std::string&)> progress);
    // Deadlines read the clock through this object, so it stays where it was made.
    RunBudget(const RunBudget&) = delete;
    RunBudget& operator=(const RunBudget&) = delete;

    // Once the checkpoint is read: the plan, and the wall time earlier sessions of a resumed run
    // spent (RunRecord::wall_seconds; 0 for a new run). Marks the start of this session's work.
    void begin(const TimeBudget& plan, double wall_before);

    double clock() const;    // seconds on this session's clock
    double elapsed() const;  // seconds of the whole run, earlier sessions included
    const TimeBudget& plan() const { return plan_; }

    // A phase's wall time: charge() adds the time since the last mark() or charge() to `seconds`.
    void mark();
    void charge(double& seconds);

    // The deadline of `phase` as it starts now, on the run's clock (TimeBudget::deadline).
    Deadline deadline(RunPhase phase) const;
    // "" when `phase` ended within its `deadline`; else TimeBudget::overrun's text with `cause`,
    // which progress has just heard as "time limit: <text>".
    std::string overran(RunPhase phase, const Deadline& deadline, const std::string& cause) const;

private:
    std::function<double()> clock_;
    std::function<void(const std::string&)> progress_;
    std::chrono::steady_clock::time_point started_;
    TimeBudget plan_;
    double wall_before_ = 0;
    double mark_ = 0;
};

}  // namespace gi
