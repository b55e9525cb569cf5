#pragma once
// Turns on the GPU between timing and the sanitizer gate (issue 19). The gate's checks may run
// while evaluate() works through the next generation, but a variant timed while a compute-sanitizer
// process runs kernels on the same GPU would be timed against time slices of another context, so
// the two never run kernels at once: timing takes the GPU alone (Timing), the gate's requests
// share it among themselves (Checking). Timing goes first: once it asks, no further check starts
// until it is done, so a gate of many requests cannot hold a generation back for its whole length,
// only for the requests already running. The waits are counted, so the search can say what running
// the gate alongside cost evaluation.
#include <condition_variable>
#include <mutex>

namespace gi {

class GpuTurns {
public:
    // evaluate()'s run requests: until every running check is done, and no check runs meanwhile.
    void begin_timing();
    void end_timing();
    // A check's request to a sanitizer process (or a process of its own): while no timing runs or waits.
    void begin_check();
    void end_check();

    // Milliseconds timing has waited for checks to finish, over the turns' life.
    double timing_waited_ms() const;

    // A turn held for a scope: Timing (evaluate()'s) or Checking (the gate's); no turns: nullptr.
    template <void (GpuTurns::*Begin)(), void (GpuTurns::*End)()>
    class Turn {
    public:
        explicit Turn(GpuTurns* turns) : turns_(turns) {
            if (turns_) (turns_->*Begin)();
        }
        ~Turn() {
            if (turns_) (turns_->*End)();
        }
        Turn(const Turn&) = delete;
        Turn& operator=(const Turn&) = delete;

    private:
        GpuTurns* turns_;
    };
    using Timing = Turn<&GpuTurns::begin_timing, &GpuTurns::end_timing>;
    using Checking = Turn<&GpuTurns::begin_check, &GpuTurns::end_check>;

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    int checks_ = 0;          // checks running
    int timing_ = 0;          // timing turns running (evaluate() holds at most one)
    int timing_waiting_ = 0;  // timing turns asked for, waiting for checks to end
    double waited_ms_ = 0;
};

}  // namespace gi
