#include "cuda/gpu_turns.hpp"

#include <chrono>

#include "util/elapsed.hpp"
#include "util/long_wait.hpp"

namespace gi {

void GpuTurns::begin_timing() {
    std::unique_lock lock(mutex_);
    if (checks_ == 0 && timing_ == 0) {
        ++timing_;
        return;
    }
    const auto start = std::chrono::steady_clock::now();
    const LongWait noted("the sanitizer gate's " + std::to_string(checks_) + " check(s) to leave the GPU to timing runs");
    ++timing_waiting_;
    changed_.wait(lock, [&] { return checks_ == 0 && timing_ == 0; });
    --timing_waiting_;
    ++timing_;
    waited_ms_ += ms_since(start);
}

void GpuTurns::end_timing() {
    {
        std::lock_guard lock(mutex_);
        --timing_;
    }
    changed_.notify_all();
}

void GpuTurns::begin_check() {
    std::unique_lock lock(mutex_);
    if (timing_ != 0 || timing_waiting_ != 0) {
        const LongWait noted("timing runs to leave the GPU to a sanitizer gate check");
        changed_.wait(lock, [&] { return timing_ == 0 && timing_waiting_ == 0; });
    }
    ++checks_;
}

void GpuTurns::end_check() {
    {
        std::lock_guard lock(mutex_);
        --checks_;
    }
    changed_.notify_all();
}

double GpuTurns::timing_waited_ms() const {
    std::lock_guard lock(mutex_);
    return waited_ms_;
}

}  // namespace gi
