#pragma once
// The time a phase of a run must end by (evolve --time-limit, run/time_budget.hpp), on the run's
// own clock, for loops that check it between pieces of work they cannot interrupt (a tuning batch,
// a minimisation comparison, a candidate's final check). A default Deadline never passes, so code
// without a time limit behaves as it always did.
#include <cmath>
#include <functional>
#include <limits>
#include <utility>

namespace gi {

class Deadline {
public:
    Deadline() = default;
    // `clock`: seconds on the run's clock; `at`: the second the phase must end by.
    Deadline(std::function<double()> clock, double at) : clock_(std::move(clock)), at_(at) {}

    bool set() const { return clock_ && std::isfinite(at_); }
    double at() const { return at_; }
    double now() const { return clock_ ? clock_() : 0.0; }
    double left() const { return set() ? at_ - now() : std::numeric_limits<double>::infinity(); }
    bool passed() const { return set() && now() >= at_; }
    // Whether a step expected to take `seconds` from now still ends by the deadline.
    bool fits(double seconds) const { return !set() || now() + seconds <= at_; }

private:
    std::function<double()> clock_;
    double at_ = std::numeric_limits<double>::infinity();
};

}  // namespace gi
