// Every child gi-tool starts is started under one lock (process/spawn_lock.hpp): a gi-worker started
// while another thread creates a child's pipes would otherwise inherit an end that is not
// close-on-exec yet and keep it open for its life, so that thread waited forever for the end of
// Boost.Process's exec-error pipe (issue 44: a 350 s "still waiting for a variant's NVRTC compile").
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "process/process.hpp"
#include "process/spawn_lock.hpp"
#include "worker/worker_process.hpp"

namespace gi::worker {
namespace {

using namespace std::chrono_literals;

TEST(SpawnLock, AWorkerIsNotStartedWhileAnotherChildIsBeingStarted) {
    std::unique_lock held(spawn_mutex());
    std::atomic<bool> started{false};
    auto starting = std::async(std::launch::async, [&] {
        WorkerOptions o;
        o.executable = std::filesystem::read_symlink("/proc/self/exe").string();
        o.env["GI_FAKE_WORKER"] = "echo";
        WorkerProcess worker(o);
        started = true;
        worker.kill();
    });
    EXPECT_EQ(starting.wait_for(300ms), std::future_status::timeout) << "the worker started while the spawn lock was held";
    EXPECT_FALSE(started);
    held.unlock();
    ASSERT_EQ(starting.wait_for(20s), std::future_status::ready);
    starting.get();
    EXPECT_TRUE(started);
}

TEST(SpawnLock, AProgramIsNotStartedWhileAnotherChildIsBeingStarted) {
    std::unique_lock held(spawn_mutex());
    auto running = std::async(std::launch::async, [] { return run_process({"/bin/true"}); });
    EXPECT_EQ(running.wait_for(300ms), std::future_status::timeout) << "the program started while the spawn lock was held";
    held.unlock();
    ASSERT_EQ(running.wait_for(20s), std::future_status::ready);
    EXPECT_EQ(running.get().exit_code, 0);
}

}  // namespace
}  // namespace gi::worker
