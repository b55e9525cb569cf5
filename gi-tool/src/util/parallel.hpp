#pragma once
// Runs independent tasks on a few threads, each thread taking the next task as soon as it is free.
// Made for the sanitizer gate: its tasks (one variant's compute-sanitizer runs, memcheck alone or
// with racecheck and synccheck after it) differ severalfold in length, and fixed groups that wait
// for their slowest member would leave slots idle behind one long racecheck.
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace gi {

// Results in the tasks' order. At most `jobs` tasks run at once (at least one). When a task throws,
// tasks not yet started are skipped, the running ones finish, and the first exception is rethrown.
template <class Result>
std::vector<Result> run_in_parallel(const std::vector<std::function<Result()>>& tasks, std::size_t jobs) {
    static_assert(!std::is_same_v<Result, bool>, "std::vector<bool> packs its elements into shared words: "
                                                  "threads writing neighbouring results would race");
    std::vector<Result> results(tasks.size());
    std::atomic<std::size_t> next{0};
    std::exception_ptr failure;
    std::mutex failure_mutex;
    auto work = [&] {
        for (std::size_t i = next++; i < tasks.size(); i = next++) {
            try {
                results[i] = tasks[i]();
            } catch (...) {
                const std::lock_guard<std::mutex> lock(failure_mutex);
                if (!failure) failure = std::current_exception();
                next = tasks.size();
            }
        }
    };
    const std::size_t thread_count = std::min(std::max<std::size_t>(jobs, 1), tasks.size());
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < thread_count; ++t) threads.emplace_back(work);
    if (thread_count > 0) work();
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    return results;
}

}  // namespace gi
