// The sanitizer gate's session pools (cuda/sanitizer_sessions.hpp) without compute-sanitizer:
// a stand-in that only stays alive, so a session is a live process and the pools' bookkeeping
// (which checker gets a place, who waits, who is ended) is what is tested.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <future>
#include <iterator>
#include <map>
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
    EXPECT_EQ(pools.capacity(kGuardZonesTool), 8);  // one for each of the gate's threads
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
                                 {{"GI_FAKE_WORKER", "replay"},
                                  {"GI_FAKE_HELLO_WAIT_FILE", hold_.string()},
                                  {"GI_FAKE_LOG", log_.string()}},
                                 true);
    }
    // A gate case of its own folder (the fake worker logs a check by its case's folder).
    std::string gate_case(const std::string& name) const {
        std::filesystem::create_directories(dir_.path() / name);
        return (dir_.path() / name / "case").string();
    }
    // The cases each worker process was asked to check or open, in order: "pid folder:variants".
    std::map<std::string, std::vector<std::string>> checks_by_worker() const {
        std::map<std::string, std::vector<std::string>> by;
        std::ifstream in(log_);
        for (std::string pid, what, folder, count; in >> pid >> what >> folder >> count;)
            if (what == "check-variants") by[pid].push_back(folder + ":" + count);
        return by;
    }
    static bool becomes_ready(SanitizerSession& s) {
        for (int k = 0; k < 500; ++k) {
            if (s.ready()) return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return false;
    }
    std::filesystem::path hold_ = dir_.path() / "hold-hello";
    std::filesystem::path log_ = dir_.path() / "fake-worker.log";
};

// With guard pages each stray read ends its session and a replacement starts at once, given back
// last. The next check takes a session that has finished starting, not that one.
TEST_F(StartingSessions, ASessionThatHasFinishedStartingIsHandedOutFirst) {
    SanitizerSessions p = pools();  // the guard zones: four places
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
    EXPECT_EQ(p.started(), 2);
    EXPECT_EQ(p.waited(), 0);
    std::filesystem::remove(hold_);
    p.release(std::move(next));
}

// Only a session still starting is idle, and one handed out ready is in a check: that one comes
// back within its check (milliseconds), the start-up takes a second or more, so the next check
// waits for it. wavefront's prescreen waited out 52 replacements' start-ups so in one 110 s search.
TEST_F(StartingSessions, AReadySessionComingBackIsWaitedForRatherThanAStartUp) {
    SanitizerSessions p = pools();
    p.prewarm(kGuardZonesTool, 1);
    auto busy = p.acquire(kGuardZonesTool);
    ASSERT_TRUE(busy);
    ASSERT_TRUE(becomes_ready(*busy));
    p.release(std::move(busy));
    busy = p.acquire(kGuardZonesTool);  // handed out ready: in a check
    SanitizerSession* const checking = busy.get();
    std::ofstream(hold_) << "";
    p.prewarm(kGuardZonesTool, 1);  // a replacement, still starting
    auto back = std::async(std::launch::async, [&] {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        p.release(std::move(busy));
    });
    const auto asked = std::chrono::steady_clock::now();
    auto next = p.acquire(kGuardZonesTool);
    const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - asked).count();
    back.get();
    ASSERT_TRUE(next);
    EXPECT_EQ(next.get(), checking);
    EXPECT_EQ(p.waited(), 1);
    EXPECT_GE(waited_ms, 100);
    EXPECT_LT(waited_ms, 1900);  // not kStartingWait: the session came back first
    EXPECT_GE(p.waited_ms(), 100);
    std::filesystem::remove(hold_);
    p.release(std::move(next));
}

// With none handed out ready (at the first gate every session is still starting), a session still
// starting is handed out at once: a busy one would be back no sooner. Nor is a start-up waited for
// past kStartingWait when the busy session's check is long.
TEST_F(StartingSessions, AStartingSessionIsHandedOutWhenNoReadyOneIsBusyOrAfterTheWait) {
    SanitizerSessions p = pools();
    std::ofstream(hold_) << "";
    p.prewarm(kGuardZonesTool, 3);
    auto a = p.acquire(kGuardZonesTool);
    auto b = p.acquire(kGuardZonesTool);
    ASSERT_TRUE(a && b);
    EXPECT_FALSE(a->ready());
    EXPECT_EQ(p.waited(), 0);
    p.release(std::move(a));
    p.release(std::move(b));
    std::filesystem::remove(hold_);
    std::unique_ptr<SanitizerSession> held;
    for (int k = 0; k < 3 && !held; ++k) {  // one that has finished starting, held as in a long check
        auto s = p.acquire(kGuardZonesTool);
        if (becomes_ready(*s)) held = std::move(s);
        else p.release(std::move(s));
    }
    ASSERT_TRUE(held);
    std::vector<std::unique_ptr<SanitizerSession>> others;  // the two idle ones, busy too
    while (others.size() < 2) {
        others.push_back(p.acquire(kGuardZonesTool));
        ASSERT_TRUE(others.back() && becomes_ready(*others.back()));
    }
    std::ofstream(hold_) << "";
    p.prewarm(kGuardZonesTool, 1);  // the fourth place: still starting
    const auto asked = std::chrono::steady_clock::now();
    auto starting = p.acquire(kGuardZonesTool);
    const auto waited = std::chrono::steady_clock::now() - asked;
    ASSERT_TRUE(starting);
    EXPECT_FALSE(starting->ready());
    EXPECT_GE(waited, SanitizerSessions::kStartingWait);
    EXPECT_LT(waited, SanitizerSessions::kStartingWait + std::chrono::seconds(3));
    std::filesystem::remove(hold_);
    p.release(std::move(starting));
    p.release(std::move(held));
    for (auto& o : others) p.release(std::move(o));
}

// Of ready sessions, one that holds the check's case open comes first: another would open it again.
TEST_F(StartingSessions, OfReadySessionsOneHoldingTheCaseOpenComesFirst) {
    const std::filesystem::path a = dir_.path() / "case-a", b = dir_.path() / "case-b";
    SanitizerSessions p = pools();
    p.prewarm(kGuardZonesTool, 1, a.string());
    p.prewarm(kGuardZonesTool, 1, b.string());
    {  // both finish starting first: this is about ready sessions
        auto x = p.acquire(kGuardZonesTool), y = p.acquire(kGuardZonesTool);
        ASSERT_TRUE(x && y && becomes_ready(*x) && becomes_ready(*y));
        p.release(std::move(x));
        p.release(std::move(y));
    }
    for (const std::filesystem::path& wanted : {a, b, a}) {
        auto s = p.acquire(kGuardZonesTool, wanted.string());
        ASSERT_TRUE(s);
        ASSERT_TRUE(becomes_ready(*s));
        EXPECT_TRUE(s->holds(wanted.string()));
        EXPECT_EQ(s->open_cases().back(), wanted.string());
        p.release(std::move(s));
    }
    EXPECT_EQ(p.started(), 2);
}

// A start-up whose reply said no (the case could not be opened) counts as finished, and the next
// check fails with the worker's words, as when it waited for that reply itself.
TEST_F(StartingSessions, AStartUpThatFailedIsReportedByTheNextCheck) {
    SanitizerSession s(sanitizer_.string(), std::filesystem::read_symlink("/proc/self/exe").string(), kGuardZonesTool,
                       {(dir_.path() / "case-a").string()}, 1024, {{"GI_FAKE_WORKER", "replay"}, {"GI_FAKE_GUARD_CASE_FAILS", "1"}},
                       true);
    ASSERT_TRUE(becomes_ready(s));
    EXPECT_FALSE(s.check((dir_.path() / "case-a").string(), "scale", dir_.path() / "none.txt", 1, std::chrono::seconds(10)));
    EXPECT_NE(s.failure().find("not enough GPU memory for one working copy of case"), std::string::npos) << s.failure();
    EXPECT_NE(s.failure().find("opening the case ahead"), std::string::npos) << s.failure();
}

// The worker keeps the cases it checked open (worker::kCheckCasesKept of them, memory allowing), and
// the session knows which: a check goes to a session that holds its case. wavefront's prescreen
// runs each would-be parent on 5 gate cases, and with one case open at a time a session opened a
// case again at almost every check (237 opens, 26.7 s of a 110 s search's checks, H200).
TEST_F(StartingSessions, ASessionHoldsTheCasesItCheckedOnUpToTheWorkersBound) {
    SanitizerSessions p = pools();
    auto s = p.acquire(kGuardZonesTool);
    ASSERT_TRUE(s);
    const std::filesystem::path none = dir_.path() / "no-variants.txt";
    std::ofstream{none};
    std::vector<std::string> cases;
    for (std::size_t k = 0; k < worker::kCheckCasesKept + 2; ++k) {
        cases.push_back(gate_case("case-" + std::to_string(k)));
        ASSERT_TRUE(s->check(cases.back(), "scale", none, 0, std::chrono::seconds(10))) << s->failure();
    }
    EXPECT_FALSE(s->holds(cases[0]));
    EXPECT_FALSE(s->holds(cases[1]));
    for (std::size_t k = 2; k < cases.size(); ++k) EXPECT_TRUE(s->holds(cases[k])) << k;
    EXPECT_EQ(s->open_cases().back(), cases.back());
    ASSERT_TRUE(s->check(cases[2], "scale", none, 0, std::chrono::seconds(10)));  // used again: the most recent
    EXPECT_EQ(s->open_cases().back(), cases[2]);
    EXPECT_EQ(s->open_cases().size(), worker::kCheckCasesKept);
    p.release(std::move(s));
}

// A guard-zones session that a fault ended is replaced by one that opens every case it held, so the
// prescreen's checks on the other gate cases find them open too; a sanitizer's replacement opens the
// last case only (opening one under the sanitizer takes seconds).
TEST_F(StartingSessions, AGuardZonesReplacementOpensEveryCaseTheEndedOneHeld) {
    SanitizerSessions p = pools();
    auto s = p.acquire(kGuardZonesTool);
    ASSERT_TRUE(s);
    const std::filesystem::path none = dir_.path() / "no-variants.txt", stray = dir_.path() / "stray.txt";
    std::ofstream{none};
    std::ofstream(stray) << "variant.cubin\t4,1,1\t1024,1,1\t0\n";  // the fake's read past the end: a fault
    const std::string a = gate_case("a"), b = gate_case("b"), c = gate_case("c");
    for (const std::string& each : {a, b, c}) ASSERT_TRUE(s->check(each, "scale", none, 0, std::chrono::seconds(10)));
    EXPECT_FALSE(s->check(a, "scale", stray, 1, std::chrono::seconds(10)));
    ASSERT_TRUE(s->guard_page_fault()) << s->failure();
    p.release(std::move(s));
    EXPECT_EQ(p.replaced(), 1);
    auto next = p.acquire(kGuardZonesTool, b);
    ASSERT_TRUE(next);
    ASSERT_TRUE(becomes_ready(*next));
    EXPECT_TRUE(next->holds(a) && next->holds(b) && next->holds(c));
    EXPECT_EQ(next->open_cases().back(), a);  // in the order the ended one last used them
    ASSERT_TRUE(next->check(b, "scale", none, 0, std::chrono::seconds(10)));
    EXPECT_TRUE(next->missed_case().empty());
    p.release(std::move(next));
    // Two workers: the first checked a, b, c and faulted on a; the second opened b, c, a ahead.
    std::vector<std::vector<std::string>> seen;
    for (const auto& [pid, checks] : checks_by_worker()) seen.push_back(checks);
    ASSERT_EQ(seen.size(), 2u);
    const std::vector<std::string> first{"a:0", "b:0", "c:0", "a:1"}, second{"b:0", "c:0", "a:0", "b:0"};
    EXPECT_TRUE((seen[0] == first && seen[1] == second) || (seen[0] == second && seen[1] == first));
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
