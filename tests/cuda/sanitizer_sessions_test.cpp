// The sanitizer gate's session pools (cuda/sanitizer_sessions.hpp) without compute-sanitizer:
// a stand-in that only stays alive, so a session is a live process and the pools' bookkeeping
// (which checker gets a place, who waits, who is ended) is what is tested.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <future>
#include <iterator>
#include <thread>

#include "cuda/sanitizer_sessions.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

class SanitizerSessionPools : public ::testing::Test {
protected:
    void SetUp() override {
        std::ofstream(sanitizer_) << "#!/bin/sh\nexec sleep 60\n";
        ::chmod(sanitizer_.c_str(), 0755);
    }
    TemporaryDirectory dir_{"gi-session-pools"};
    std::filesystem::path sanitizer_ = dir_.path() / "idle-sanitizer";
};

TEST_F(SanitizerSessionPools, EachCheckerHasPlacesOfItsOwn) {
    SanitizerSessions pools(sanitizer_.string(), "/bin/true", 8);
    EXPECT_EQ(pools.capacity("memcheck"), 8);
    EXPECT_EQ(pools.capacity("racecheck"), 2);
    EXPECT_EQ(pools.capacity("synccheck"), 2);
    EXPECT_EQ(SanitizerSessions(sanitizer_.string(), "/bin/true", 2).capacity("racecheck"), 1);
    // --racecheck-sessions gives racecheck its own number; the others keep theirs.
    const SanitizerSessions more_race(sanitizer_.string(), "/bin/true", 8, 0, 6);
    EXPECT_EQ(more_race.capacity("racecheck"), 6);
    EXPECT_EQ(more_race.capacity("synccheck"), 2);
    EXPECT_EQ(more_race.capacity("memcheck"), 8);
    EXPECT_EQ(SanitizerSessions(sanitizer_.string(), "/bin/true", 0, 0, 6).capacity("racecheck"), 0);

    pools.prewarm("memcheck", 8);
    EXPECT_EQ(pools.started(), 8);
    // A racecheck session does not end an idle memcheck one: the next memcheck batch finds it.
    auto race = pools.acquire("racecheck");
    ASSERT_TRUE(race);
    EXPECT_EQ(pools.started(), 9);
    std::vector<std::unique_ptr<SanitizerSession>> mem;
    for (int k = 0; k < 8; ++k) mem.push_back(pools.acquire("memcheck"));
    for (const auto& m : mem) ASSERT_TRUE(m);
    EXPECT_EQ(pools.started(), 9);
    for (auto& m : mem) pools.release(std::move(m));
    pools.release(std::move(race));
    // Prewarming stays within the checker's own pool.
    pools.prewarm("synccheck", 5);
    EXPECT_EQ(pools.started(), 11);
}

TEST_F(SanitizerSessionPools, AFullCheckerWaitsForItsOwnSessionToComeBack) {
    SanitizerSessions pools(sanitizer_.string(), "/bin/true", 4);  // racecheck: one place
    auto held = pools.acquire("racecheck");
    ASSERT_TRUE(held);
    SanitizerSession* const first = held.get();
    auto waiter = std::async(std::launch::async, [&] { return pools.acquire("racecheck"); });
    EXPECT_EQ(waiter.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout);
    pools.release(std::move(held));
    ASSERT_EQ(waiter.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    auto again = waiter.get();
    EXPECT_EQ(again.get(), first);  // the same process, not a new start
    EXPECT_EQ(pools.started(), 1);
    EXPECT_EQ(pools.waited(), 1);
    pools.release(std::move(again));
}

TEST_F(SanitizerSessionPools, ADeadSessionIsNotKeptAndItsPlaceIsFree) {
    std::ofstream(sanitizer_) << "#!/bin/sh\nexit 0\n";  // ends at once, like a crashed sanitizer
    SanitizerSessions pools(sanitizer_.string(), "/bin/true", 4);
    auto session = pools.acquire("racecheck");
    ASSERT_TRUE(session);
    // The check finds it gone and ends the session.
    EXPECT_FALSE(session->check("case", "kernel", dir_.path() / "variants.txt", 1, std::chrono::seconds(5)));
    EXPECT_FALSE(session->failure().empty());
    ASSERT_FALSE(session->alive());
    pools.release(std::move(session));
    auto next = pools.acquire("racecheck");  // a new start, no wait
    EXPECT_TRUE(next);
    EXPECT_EQ(pools.started(), 2);
    EXPECT_EQ(pools.waited(), 0);
}

// gi-worker opens the GPU at its first request; a session asks at once, so the CUDA context under
// the sanitizer is made while search goes on, not in front of the first check.
TEST_F(SanitizerSessionPools, ASessionAsksItsWorkerToOpenTheGpuAtOnce) {
    const std::filesystem::path log = dir_.path() / "stdin.log";
    std::ofstream(sanitizer_) << "#!/bin/sh\nexec cat > '" << log.string() << "'\n";
    SanitizerSession session(sanitizer_.string(), "/bin/true", "memcheck");
    std::string seen;
    for (int k = 0; k < 250 && seen.find("hello") == std::string::npos; ++k) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        std::ifstream in(log, std::ios::binary);
        seen.assign(std::istreambuf_iterator<char>(in), {});
    }
    EXPECT_NE(seen.find("hello"), std::string::npos) << "no request reached the worker before any check";
}

// Guard-zones sessions served by the fake worker (gi_tests itself, GI_FAKE_WORKER=replay), whose
// answer to hello waits while `hold` exists: a session still making its CUDA context.
class StartingSessions : public SanitizerSessionPools {
protected:
    SanitizerSessions pools(int limit = 4) const {
        return SanitizerSessions(sanitizer_.string(), std::filesystem::read_symlink("/proc/self/exe").string(), limit, 1024, 0,
                                 {{"GI_FAKE_WORKER", "replay"}, {"GI_FAKE_HELLO_WAIT_FILE", hold_.string()}}, true);
    }
    static bool becomes_ready(SanitizerSession& s) {
        for (int k = 0; k < 500; ++k) {
            if (s.ready()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }
    std::filesystem::path hold_ = dir_.path() / "hold-hello";
};

// With guard pages each stray read ends its session and a replacement starts at once, given back
// last. The next check takes a session that has finished starting, not that one.
TEST_F(StartingSessions, ASessionThatHasFinishedStartingIsHandedOutFirst) {
    SanitizerSessions p = pools();  // the guard zones: two places
    p.prewarm(kGuardZonesTool, 1);
    auto first = p.acquire(kGuardZonesTool);
    ASSERT_TRUE(first);
    ASSERT_TRUE(becomes_ready(*first));
    SanitizerSession* const started = first.get();
    p.release(std::move(first));
    std::ofstream(hold_) << "";
    p.prewarm(kGuardZonesTool, 1);  // still making its context: given back after the first
    auto next = p.acquire(kGuardZonesTool);
    ASSERT_TRUE(next);
    EXPECT_EQ(next.get(), started);
    auto other = p.acquire(kGuardZonesTool);  // the one still starting, when nothing else is idle
    ASSERT_TRUE(other);
    EXPECT_NE(other.get(), started);
    EXPECT_FALSE(other->ready());
    std::filesystem::remove(hold_);
    EXPECT_TRUE(becomes_ready(*other));
    EXPECT_EQ(p.started(), 2);
    EXPECT_EQ(p.waited(), 0);
    p.release(std::move(next));
    p.release(std::move(other));
}

// Of ready sessions, one that holds the check's case open comes first: another would open it again.
TEST_F(StartingSessions, OfReadySessionsOneHoldingTheCaseOpenComesFirst) {
    const std::filesystem::path a = dir_.path() / "case-a", b = dir_.path() / "case-b";
    SanitizerSessions p = pools();
    p.prewarm(kGuardZonesTool, 1, a.string());
    p.prewarm(kGuardZonesTool, 1, b.string());
    for (const std::filesystem::path& wanted : {a, b, a}) {
        auto s = p.acquire(kGuardZonesTool, wanted.string());
        ASSERT_TRUE(s);
        ASSERT_TRUE(becomes_ready(*s));
        EXPECT_EQ(s->open_case(), wanted.string());
        p.release(std::move(s));
    }
    EXPECT_EQ(p.started(), 2);
}

// A start-up whose reply said no (the case could not be opened) counts as finished, and the next
// check fails with the worker's words, as when it waited for that reply itself.
TEST_F(StartingSessions, AStartUpThatFailedIsReportedByTheNextCheck) {
    SanitizerSession s(sanitizer_.string(), std::filesystem::read_symlink("/proc/self/exe").string(), kGuardZonesTool,
                       (dir_.path() / "case-a").string(), 1024, {{"GI_FAKE_WORKER", "replay"}, {"GI_FAKE_GUARD_CASE_FAILS", "1"}},
                       true);
    ASSERT_TRUE(becomes_ready(s));
    EXPECT_FALSE(s.check((dir_.path() / "case-a").string(), "scale", dir_.path() / "none.txt", 1, std::chrono::seconds(10)));
    EXPECT_NE(s.failure().find("not enough GPU memory for one working copy of case"), std::string::npos) << s.failure();
    EXPECT_NE(s.failure().find("opening the case ahead"), std::string::npos) << s.failure();
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Racecheck's warning-level hazards never fail a variant, so it is asked for errors only (tracking
// warnings was most of its time on a variant without its barrier); the other checkers as they are.
TEST(SanitizerToolArguments, RacecheckDetectsErrorsOnly) {
    EXPECT_EQ(sanitizer_tool_arguments("memcheck"), (std::vector<std::string>{"--tool", "memcheck"}));
    EXPECT_EQ(sanitizer_tool_arguments("racecheck"),
              (std::vector<std::string>{"--tool", "racecheck", "--racecheck-detect-level", "error"}));
    EXPECT_EQ(sanitizer_tool_arguments("synccheck"), (std::vector<std::string>{"--tool", "synccheck"}));
}

}  // namespace
}  // namespace gi
