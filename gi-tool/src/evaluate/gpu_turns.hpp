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

    class Timing {
    public:
        explicit Timing(GpuTurns* turns) : turns_(turns) {
            if (turns_) turns_->begin_timing();
        }
        ~Timing() {
            if (turns_) turns_->end_timing();
        }
        Timing(const Timing&) = delete;
        Timing& operator=(const Timing&) = delete;

    private:
        GpuTurns* turns_;
    };

    class Checking {
    public:
        explicit Checking(GpuTurns* turns) : turns_(turns) {
            if (turns_) turns_->begin_check();
        }
        ~Checking() {
            if (turns_) turns_->end_check();
        }
        Checking(const Checking&) = delete;
        Checking& operator=(const Checking&) = delete;

    private:
        GpuTurns* turns_;
    };

private:
    mutable std::mutex mutex_;
    std::condition_variable changed_;
    int checks_ = 0;          // checks running
    int timing_ = 0;          // timing turns running (evaluate() holds at most one)
    int timing_waiting_ = 0;  // timing turns asked for, waiting for checks to end
    double waited_ms_ = 0;
};

}  // namespace gi
