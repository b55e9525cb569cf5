#include "worker/worker_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../support/gi_tool_run.hpp"

namespace gi::worker {
namespace {

using namespace std::chrono_literals;

WorkerOptions fake(const std::string& mode) {
    WorkerOptions o;
    o.executable = std::filesystem::read_symlink("/proc/self/exe").string();
    o.env["GI_FAKE_WORKER"] = mode;
    return o;
}

// Logs of workers whose owner was killed (a test program stopped by its timeout) are swept; a live
// owner's, and files of other shapes, stay.
TEST(WorkerProcess, OrphanedLogsAreRemovedLiveOnesKept) {
    const std::filesystem::path dir = test::fresh_temp_dir("gi-worker-logs");
    std::filesystem::create_directories(dir);
    const pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ASSERT_GT(gone, 0);
    ::waitpid(gone, nullptr, 0);
    const std::string dead = "gi-worker-" + std::to_string(gone) + "-42.log";
    const std::string live = "gi-worker-" + std::to_string(::getpid()) + "-43.log";
    const std::string parent = "gi-worker-" + std::to_string(::getppid()) + "-44.log";
    for (const std::string& name : {dead, live, parent, std::string("gi-worker-1234567.log"), std::string("gi-worker-notes.txt")})
        std::ofstream(dir / name) << "log\n";
    remove_orphaned_worker_logs(dir);
    EXPECT_FALSE(std::filesystem::exists(dir / dead));
    for (const char* kept : {"gi-worker-1234567.log", "gi-worker-notes.txt"}) EXPECT_TRUE(std::filesystem::exists(dir / kept)) << kept;
    EXPECT_TRUE(std::filesystem::exists(dir / live));
    EXPECT_TRUE(std::filesystem::exists(dir / parent));
}

TEST(WorkerProcess, AnswersRequestsWithPayloads) {
    WorkerProcess w(fake("echo"));
    for (int i = 0; i < 3; ++i) {
        const std::string payload(200000 + i, 'c');  // larger than a pipe's buffer
        const Message reply = w.request({"run", {{"n", std::to_string(i)}}, payload}, 10s);
        EXPECT_EQ(reply.type, "echo");
        EXPECT_EQ(reply.get("n"), std::to_string(i));
        EXPECT_EQ(reply.payload, payload);
    }
    EXPECT_TRUE(w.running());
}

TEST(WorkerProcess, HangingWorkerIsKilledAtTheTimeout) {
    WorkerProcess w(fake("hang"));
    const int pid = w.pid();
    const auto start = std::chrono::steady_clock::now();
    try {
        w.request({"run", {}, {}}, 300ms);
        FAIL() << "expected a timeout";
    } catch (const WorkerFailure& e) {
        EXPECT_EQ(e.kind(), WorkerFailure::Kind::Timeout);
        EXPECT_NE(std::string(e.what()).find("300 ms"), std::string::npos) << e.what();
    }
    const auto took = std::chrono::steady_clock::now() - start;
    EXPECT_LT(took, 5s);
    EXPECT_FALSE(w.running());
    // Gone and reaped (on a thread of the parent's) soon after.
    bool gone = false;
    for (int i = 0; i < 100 && !gone; ++i) {
        gone = ::kill(pid, 0) != 0;
        if (!gone) std::this_thread::sleep_for(50ms);
    }
    EXPECT_TRUE(gone);
    EXPECT_THROW(w.request({"run", {}, {}}, 1s), WorkerFailure);
}

TEST(WorkerProcess, CrashingWorkerIsReportedWithItsLastWords) {
    WorkerProcess w(fake("crash"));
    try {
        w.request({"load-case", {}, {}}, 10s);
        FAIL() << "expected a crash";
    } catch (const WorkerFailure& e) {
        EXPECT_EQ(e.kind(), WorkerFailure::Kind::Died);
        const std::string m = e.what();
        EXPECT_NE(m.find("signal 6"), std::string::npos) << m;
        EXPECT_NE(m.find("crashing on a 'load-case' request"), std::string::npos) << m;
    }
    EXPECT_FALSE(w.running());
}

TEST(WorkerProcess, WorkerThatExitsIsDied) {
    WorkerProcess w(fake("exit"));
    try {
        w.request({"hello", {}, std::string(300000, 'x')}, 10s);
        FAIL();
    } catch (const WorkerFailure& e) {
        EXPECT_EQ(e.kind(), WorkerFailure::Kind::Died);
        EXPECT_NE(std::string(e.what()).find("status 3"), std::string::npos) << e.what();
    }
}

TEST(WorkerProcess, GarbageOnThePipeIsAProtocolFailure) {
    WorkerProcess w(fake("garbage"));
    try {
        w.request({"hello", {}, {}}, 10s);
        FAIL();
    } catch (const WorkerFailure& e) {
        EXPECT_EQ(e.kind(), WorkerFailure::Kind::Protocol);
    }
    EXPECT_FALSE(w.running());
}

TEST(WorkerProcess, MissingProgramIsAClearError) {
    WorkerOptions o;
    o.executable = "/nonexistent/gi-worker";
    try {
        WorkerProcess w(o);
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/gi-worker"), std::string::npos) << e.what();
    }
}

TEST(WorkerProcess, ANewWorkerAfterAFailureCarriesOn) {
    {
        WorkerProcess crashed(fake("crash"));
        EXPECT_THROW(crashed.request({"run", {}, {}}, 10s), WorkerFailure);
    }
    WorkerProcess next(fake("echo"));
    EXPECT_EQ(next.request({"hello", {}, {}}, 10s).get("request-type"), "hello");
}

}  // namespace
}  // namespace gi::worker

namespace gi::worker {
namespace {
TEST(WorkerProcess, PipelinedRequestsAreAnsweredInOrder) {
    WorkerProcess w(fake("echo"));
    for (int i = 0; i < 3; ++i) w.send({"load-case", {{"n", std::to_string(i)}}, {}}, std::chrono::seconds(5));
    for (int i = 0; i < 3; ++i) EXPECT_EQ(w.receive("load-case", std::chrono::seconds(5)).get("n"), std::to_string(i));
}
}  // namespace
}  // namespace gi::worker

namespace gi::worker {
namespace {

TEST(WorkerProcess, TryReceiveNeverWaitsAndNeverKills) {
    WorkerProcess w(fake("echo"));
    EXPECT_FALSE(w.try_receive("hello").has_value());  // nothing sent: nothing there, still alive
    EXPECT_TRUE(w.running());
    w.send({"hello", {{"n", "1"}}, {}}, std::chrono::seconds(5));
    std::optional<Message> reply;
    for (int i = 0; i < 500 && !reply; ++i) {
        reply = w.try_receive("hello");
        if (!reply) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(reply->get("n"), "1");
}

TEST(WorkerProcess, TryReceiveReportsAWorkerThatDied) {
    WorkerProcess w(fake("crash"));
    w.send({"hello", {}, {}}, std::chrono::seconds(5));
    bool died = false;
    for (int i = 0; i < 500 && !died; ++i) {
        try {
            if (w.try_receive("hello")) break;
        } catch (const WorkerFailure& e) {
            died = e.kind() == WorkerFailure::Kind::Died;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(died);
    EXPECT_FALSE(w.running());
}

TEST(WorkerProcess, KilledWorkersAreAwaited) {
    WorkerProcess w(fake("hang"));
    w.send({"hello", {}, {}}, std::chrono::seconds(5));
    const long reaped_before = killed_worker_exits().reaped;
    w.kill();
    EXPECT_TRUE(wait_for_killed_workers(std::chrono::seconds(10)));
    EXPECT_EQ(killed_workers_exiting(), 0);
    const KilledWorkerExits exits = killed_worker_exits();
    EXPECT_EQ(exits.reaped, reaped_before + 1);
    EXPECT_GE(exits.mean_ms, 0.0);
}

}  // namespace
}  // namespace gi::worker
