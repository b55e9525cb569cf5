#include "cuda/turn_delay.hpp"

#include <gtest/gtest.h>

namespace gi {
namespace {

using namespace std::chrono_literals;
using Clock = TurnDelay::Clock;

// A batch on a made-up clock: the original runs 10 ms, then variants whose builds come every 100 ms
// and run 5 ms each.
TEST(TurnDelay, AWaitWhileCompilesGoOnCostsNothing) {
    const Clock::time_point t0{};
    TurnDelay delay(t0);
    delay.ran(t0, 10ms);
    delay.ran(t0 + 100ms, 5ms);  // ends at 105 ms
    delay.waited(60);            // the second variant's run waited for a check, from 105 to 165 ms...
    delay.ran(t0 + 200ms, 5ms);  // ...but its build was only ready at 200 ms: it ends at 205 ms as alone
    EXPECT_EQ(delay.waited_ms(), 60.0);
    EXPECT_EQ(delay.delay_ms(t0 + 205ms), 0.0);
}

TEST(TurnDelay, AWaitWithEveryBuildReadyDelaysTheBatchByTheWait) {
    const Clock::time_point t0{};
    TurnDelay delay(t0);
    delay.ran(t0, 10ms);
    delay.waited(300);
    delay.ran(t0, 5ms);  // its build was ready at once: alone the batch ends at 15 ms
    delay.ran(t0, 5ms);  // 20 ms
    EXPECT_DOUBLE_EQ(delay.delay_ms(t0 + 320ms), 300.0);
    // Never more than the waits (time the batch lost otherwise is not the gate's) nor below zero.
    EXPECT_DOUBLE_EQ(delay.delay_ms(t0 + 900ms), 300.0);
    EXPECT_DOUBLE_EQ(delay.delay_ms(t0 + 10ms), 0.0);
}

TEST(TurnDelay, PartOfAWaitIsMadeUpByBuildsThatWereLate) {
    const Clock::time_point t0{};
    TurnDelay delay(t0);
    delay.ran(t0, 10ms);
    delay.waited(100);            // the first variant waited 100 ms (its build was ready at 20 ms)
    delay.ran(t0 + 20ms, 5ms);    // alone: 20-25 ms; here 110-115 ms
    delay.ran(t0 + 80ms, 5ms);    // alone: 80-85 ms; here 115-120 ms: 35 ms later
    EXPECT_DOUBLE_EQ(delay.delay_ms(t0 + 120ms), 35.0);
}

}  // namespace
}  // namespace gi
