#include "search/background_prefetch.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "genome/genome.hpp"

namespace gi {
namespace {

Genome genome_of(const std::string& text) { return parse_genome(text); }

TEST(BackgroundPrefetch, PrefetchesWhatIsAddedOffTheCallersThread) {
    std::mutex mutex;
    std::vector<std::string> seen;
    std::thread::id ran_on;
    BackgroundPrefetch prefetch([&](const std::vector<Genome>& parents) {
        std::lock_guard lock(mutex);
        ran_on = std::this_thread::get_id();
        for (const Genome& g : parents) seen.push_back(genome_to_text(g));
    });
    prefetch.add(genome_of("X=1"));
    prefetch.add(genome_of("X=2"));
    prefetch.wait_idle();
    std::lock_guard lock(mutex);
    EXPECT_EQ(seen, (std::vector<std::string>{"X=1", "X=2"}));
    EXPECT_NE(ran_on, std::this_thread::get_id());
}

TEST(BackgroundPrefetch, AddReturnsWhileAPrefetchRunsAndTheQueueGoesInOneCall) {
    std::atomic<bool> release{false};
    std::atomic<int> calls{0};
    std::mutex mutex;
    std::vector<std::size_t> sizes;
    BackgroundPrefetch prefetch([&](const std::vector<Genome>& parents) {
        ++calls;
        {
            std::lock_guard lock(mutex);
            sizes.push_back(parents.size());
        }
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    });
    prefetch.add(genome_of("X=1"));
    while (calls == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    // The first is compiling: these return at once, and wait for it together.
    const auto start = std::chrono::steady_clock::now();
    prefetch.add(genome_of("X=2"));
    prefetch.add(genome_of("X=3"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
    release = true;
    prefetch.wait_idle();
    std::lock_guard lock(mutex);
    EXPECT_EQ(sizes, (std::vector<std::size_t>{1, 2}));
}

TEST(BackgroundPrefetch, AFailingPrefetchIsNotFatalAndTheNextRuns) {
    std::atomic<int> calls{0};
    BackgroundPrefetch prefetch([&](const std::vector<Genome>&) {
        if (++calls == 1) throw std::runtime_error("no nvcc");
    });
    prefetch.add(genome_of("X=1"));
    prefetch.wait_idle();
    prefetch.add(genome_of("X=2"));
    prefetch.wait_idle();
    EXPECT_EQ(calls.load(), 2);
}

TEST(BackgroundPrefetch, WithoutAPrefetchNothingRunsAndStoppingDropsTheQueue) {
    BackgroundPrefetch none{DrawPrefetch{}};
    none.add(genome_of("X=1"));
    none.wait_idle();  // returns: nothing queued
    std::atomic<int> calls{0};
    std::atomic<bool> started{false};
    {
        BackgroundPrefetch slow([&](const std::vector<Genome>&) {
            ++calls;
            started = true;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        });
        slow.add(genome_of("X=1"));
        while (!started) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        slow.add(genome_of("X=2"));  // queued behind the one running: dropped when it stops
    }
    EXPECT_EQ(calls.load(), 1);
}

}  // namespace
}  // namespace gi
