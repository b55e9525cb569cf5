#include "cuda/gpu_turns.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace gi {
namespace {

using namespace std::chrono_literals;

// Waits (bounded) until `flag` holds, so a test never hangs on a broken turn.
bool eventually(const std::atomic<bool>& flag) {
    for (int i = 0; i < 500 && !flag; ++i) std::this_thread::sleep_for(2ms);
    return flag;
}

TEST(GpuTurns, TimingWaitsForTheChecksRunningAndCountsTheWait) {
    GpuTurns turns;
    turns.begin_check();
    turns.begin_check();  // checks share the GPU among themselves
    std::atomic<bool> timing{false};
    std::thread timer([&] {
        GpuTurns::Timing turn(&turns);
        timing = true;
    });
    std::this_thread::sleep_for(30ms);
    EXPECT_FALSE(timing);
    turns.end_check();
    std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(timing);  // one check still runs
    turns.end_check();
    EXPECT_TRUE(eventually(timing));
    timer.join();
    EXPECT_GE(turns.timing_waited_ms(), 30.0);
}

TEST(GpuTurns, NoCheckStartsWhileTimingRunsOrWaits) {
    GpuTurns turns;
    turns.begin_check();
    std::atomic<bool> timing_started{false}, release_timing{false}, check_started{false};
    std::thread timer([&] {
        turns.begin_timing();
        timing_started = true;
        while (!release_timing) std::this_thread::sleep_for(1ms);
        turns.end_timing();
    });
    std::this_thread::sleep_for(20ms);  // the timer is waiting for the running check now
    std::thread checker([&] {
        GpuTurns::Checking turn(&turns);
        check_started = true;
    });
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(check_started);  // timing asked first
    turns.end_check();
    EXPECT_TRUE(eventually(timing_started));
    std::this_thread::sleep_for(20ms);
    EXPECT_FALSE(check_started);  // not while timing runs
    release_timing = true;
    EXPECT_TRUE(eventually(check_started));
    timer.join();
    checker.join();
}

TEST(GpuTurns, WithoutChecksTimingNeverWaits) {
    GpuTurns turns;
    for (int i = 0; i < 3; ++i) GpuTurns::Timing turn(&turns);
    EXPECT_EQ(turns.timing_waited_ms(), 0.0);
    GpuTurns::Timing none(nullptr);  // no turns: nothing to take
}

}  // namespace
}  // namespace gi
