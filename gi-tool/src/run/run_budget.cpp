#include "run/run_budget.hpp"

#include "run/evolve.hpp"
#include "tune/tune.hpp"

namespace gi {

TimeBudget run_time_budget(const EvolveOptions& options, const Grammar& grammar, const Evaluator& evaluator,
                           bool final_check) {
    TimeBudget plan;
    plan.limit_s = options.time_limit_s;
    plan.search = options.generations > 0;
    // Other cases to check the best on, or its speed to measure again (run/confirm_best.hpp).
    plan.confirm = evaluator.case_count() >= 2 || evaluator.traits().measures_time;
    plan.minimise = options.minimise && evaluator.traits().measures_time;
    plan.post_tune = options.post_tune && evaluator.traits().measures_time && !tunable_genes(grammar).empty();
    plan.final_check = final_check;
    return plan;
}

RunBudget::RunBudget(std::function<double()> clock, std::function<void(const std::string&)> progress)
    : clock_(std::move(clock)), progress_(std::move(progress)), started_(std::chrono::steady_clock::now()) {}

void RunBudget::begin(const TimeBudget& plan, double wall_before) {
    plan_ = plan;
    wall_before_ = wall_before;
    mark();
}

double RunBudget::clock() const {
    if (clock_) return clock_();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

double RunBudget::elapsed() const { return wall_before_ + clock(); }

void RunBudget::mark() { mark_ = clock(); }

void RunBudget::charge(double& seconds) {
    const double now = clock();
    seconds += now - mark_;
    mark_ = now;
}

Deadline RunBudget::deadline(RunPhase phase) const {
    return Deadline([this] { return elapsed(); }, plan_.deadline(phase, elapsed()));
}

std::string RunBudget::overran(RunPhase phase, const Deadline& deadline, const std::string& cause) const {
    const std::string text = plan_.overrun(phase, deadline.at(), elapsed(), cause);
    if (!text.empty() && progress_) progress_("time limit: " + text);
    return text;
}

}  // namespace gi
