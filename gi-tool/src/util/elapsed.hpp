#pragma once
// Wall time for the tool's own accounting (where a run's time went), on the monotonic clock.
#include <chrono>

namespace gi {

inline double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace gi
