#include "util/parallel.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <stdexcept>
#include <string>

namespace gi {
namespace {

TEST(RunInParallel, ResultsComeInTheTasksOrder) {
    std::vector<std::function<int()>> tasks;
    for (int i = 0; i < 50; ++i) tasks.push_back([i] { return i * i; });
    const std::vector<int> results = run_in_parallel(tasks, 4);
    ASSERT_EQ(results.size(), 50u);
    for (int i = 0; i < 50; ++i) EXPECT_EQ(results[static_cast<std::size_t>(i)], i * i);
}

TEST(RunInParallel, NoTasksAndZeroJobsAreFine) {
    EXPECT_TRUE(run_in_parallel(std::vector<std::function<int()>>{}, 4).empty());
    const std::vector<std::function<int()>> one{[] { return 7; }};
    EXPECT_EQ(run_in_parallel(one, 0), std::vector<int>{7});  // zero jobs still runs, on one thread
}

TEST(RunInParallel, NeverRunsMoreThanJobsAtOnce) {
    std::atomic<int> running{0}, most{0};
    std::vector<std::function<int()>> tasks(40, [&] {
        const int now = ++running;
        for (int seen = most.load(); now > seen && !most.compare_exchange_weak(seen, now);) {}
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        --running;
        return 0;
    });
    run_in_parallel(tasks, 3);
    EXPECT_LE(most.load(), 3);
    EXPECT_GE(most.load(), 1);
}

// The property the sanitizer gate needs: one long task does not hold back the others. With two
// threads, task 0 waits until tasks 1-4 are done; run in fixed pairs (0 and 1, then 2 and 3, ...)
// tasks 2-4 would wait for task 0 and it would give up after its deadline.
TEST(RunInParallel, AFreeThreadTakesTheNextTaskWhileALongOneRuns) {
    std::mutex mutex;
    std::condition_variable done_changed;
    int others_done = 0;
    std::vector<std::function<std::string()>> tasks;
    tasks.push_back([&]() -> std::string {
        std::unique_lock lock(mutex);
        const bool all = done_changed.wait_for(lock, std::chrono::seconds(20), [&] { return others_done == 4; });
        return all ? "saw the others finish" : "waited in vain";
    });
    for (int i = 0; i < 4; ++i)
        tasks.push_back([&]() -> std::string {
            {
                const std::lock_guard lock(mutex);
                ++others_done;
            }
            done_changed.notify_all();
            return "done";
        });
    const std::vector<std::string> results = run_in_parallel(tasks, 2);
    EXPECT_EQ(results[0], "saw the others finish");
}

TEST(RunInParallel, TheFirstExceptionReachesTheCallerAndLaterTasksAreSkipped) {
    std::atomic<int> ran{0};
    std::vector<std::function<int()>> tasks;
    tasks.push_back([&]() -> int { ++ran; throw std::runtime_error("task 0 failed"); });
    for (int i = 0; i < 20; ++i) tasks.push_back([&] { return ++ran; });
    try {
        run_in_parallel(tasks, 1);
        FAIL() << "expected the task's exception";
    } catch (const std::runtime_error& e) {
        EXPECT_STREQ(e.what(), "task 0 failed");
    }
    EXPECT_EQ(ran.load(), 1);  // one thread: nothing after the failing task started
}

}  // namespace
}  // namespace gi
