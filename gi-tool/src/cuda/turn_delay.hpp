#pragma once
// How much later a batch of runs ended for waiting for GPU turns (cuda/gpu_turns.hpp) while
// the sanitizer gate's checks ran alongside it. The waits themselves overstate it: compiles go on
// while a run waits, so the runs after it may catch up. The batch's end is compared with the end
// its builds and runs alone allowed, each run starting once its build was ready and the run before
// it done, and taking as long as it took; the difference, at most the waits, is the delay.
#include <algorithm>
#include <chrono>

namespace gi {

class TurnDelay {
public:
    using Clock = std::chrono::steady_clock;

    explicit TurnDelay(Clock::time_point start) : alone_end_(start) {}

    // A wait for a turn, before a run.
    void waited(double ms) { waited_ms_ += ms; }
    // A run whose build was ready at `ready` (the batch's start for the original's) and took `took`
    // once its turn came.
    void ran(Clock::time_point ready, Clock::duration took) { alone_end_ = std::max(alone_end_, ready) + took; }

    double waited_ms() const { return waited_ms_; }
    // For a batch that ended at `end`.
    double delay_ms(Clock::time_point end) const {
        const double later = std::chrono::duration<double, std::milli>(end - alone_end_).count();
        return std::clamp(later, 0.0, waited_ms_);
    }

private:
    Clock::time_point alone_end_;
    double waited_ms_ = 0;
};

}  // namespace gi
