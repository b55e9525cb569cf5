// Workers started through a launcher (--worker-launcher): the command line it gets, the
// environment passed on it, killing its whole group, and telling a launcher lost with its node
// from a worker that died of what it ran. The launchers here are small shell scripts; the
// worker is gi_tests itself (tests/support/fake_worker.cpp).
#include "worker/launcher.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "util/error.hpp"
#include "worker/worker_process.hpp"

namespace gi::worker {
namespace {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

WorkerOptions launched_fake(const std::string& mode, std::vector<std::string> launcher) {
    WorkerOptions o;
    o.executable = fs::read_symlink("/proc/self/exe").string();
    o.env["GI_FAKE_WORKER"] = mode;
    o.launcher = std::move(launcher);
    return o;
}

// A launcher script in a fresh folder: `body` runs with the worker's command line in "$@".
std::string launcher_script(const std::string& name, const std::string& body) {
    const fs::path dir = test::fresh_temp_dir("gi-launcher-" + name);
    fs::create_directories(dir);
    const fs::path script = dir / "launch";
    std::ofstream(script) << "#!/bin/sh\n" << body;
    fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
    return script.string();
}

// Whether `pid` is gone (or a zombie nobody reaped: a container's init may not).
bool process_gone(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

TEST(WorkerLauncher, SplitsItsCommandAsAShellWouldWithoutOne) {
    EXPECT_EQ(split_launcher_command("srun --gres=gpu:1  -N1 -n1 --quiet"),
              (std::vector<std::string>{"srun", "--gres=gpu:1", "-N1", "-n1", "--quiet"}));
    EXPECT_EQ(split_launcher_command(R"(ssh -o 'ProxyJump gate' "node 1" a\ b "x\"y" $HOME)"),
              (std::vector<std::string>{"ssh", "-o", "ProxyJump gate", "node 1", "a b", "x\"y", "$HOME"}));
    EXPECT_EQ(split_launcher_command("env ''"), (std::vector<std::string>{"env", ""}));
    try {
        split_launcher_command("ssh 'node");
        FAIL();
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find("--worker-launcher \"ssh 'node\""), std::string::npos) << e.what();
    }
    EXPECT_THROW(split_launcher_command("   "), UsageError);
}

TEST(WorkerLauncher, PutsTheEnvironmentOnTheCommandLineBeforeTheWorker) {
    EXPECT_EQ(launched_command({"ssh", "node"}, {{"GI_WORKER_DEVICE", "1"}, {"A", "b c"}}, "/opt/gi-worker", {"--x"}),
              (std::vector<std::string>{"ssh", "node", "env", "A=b c", "GI_WORKER_DEVICE=1", "/opt/gi-worker", "--x"}));
    EXPECT_EQ(launched_command({"srun"}, {}, "/opt/gi-worker", {}), (std::vector<std::string>{"srun", "/opt/gi-worker"}));
}

// A crash reported as the launcher's exit status (srun: 134 for an abort) after the worker answered
// is the worker's; a launcher ended by a signal, ssh's 255, or an end before any answer is the launcher's.
TEST(WorkerLauncher, TellsALostLauncherFromACrashedWorker) {
    const int exited_134 = 134 << 8, exited_255 = 255 << 8, exited_0 = 0, killed_9 = SIGKILL;
    ASSERT_TRUE(WIFEXITED(exited_134) && WEXITSTATUS(exited_134) == 134);
    ASSERT_TRUE(WIFSIGNALED(killed_9));
    EXPECT_FALSE(launcher_lost(exited_134, true));
    EXPECT_FALSE(launcher_lost(exited_0, true));
    EXPECT_TRUE(launcher_lost(exited_134, false));
    EXPECT_TRUE(launcher_lost(exited_255, true));
    EXPECT_TRUE(launcher_lost(killed_9, true));
}

// `env -i` forwards nothing, as ssh does not: the fake worker only knows it is one (GI_FAKE_WORKER)
// from the command line.
TEST(WorkerLauncher, ALauncherThatDropsTheEnvironmentStillGivesTheWorkerItsVariables) {
    WorkerProcess w(launched_fake("echo", {"env", "-i"}));
    const Message reply = w.request({"hello", {}, {}}, 10s);
    EXPECT_EQ(reply.type, "echo");
    EXPECT_EQ(reply.get("request-type"), "hello");
}

TEST(WorkerLauncher, KillingALaunchedWorkerEndsTheLaunchersGroupAtOnce) {
    const fs::path pid_dir = test::fresh_temp_dir("gi-launcher-pid");
    fs::create_directories(pid_dir);
    const fs::path pid_file = pid_dir / "worker.pid";
    // A launcher that stays as the worker's parent and ignores SIGTERM, as one that hangs would.
    const std::string launcher =
        launcher_script("group", "trap '' TERM\nexec 3<&0\n\"$@\" 0<&3 3<&- & echo $! > '" + pid_file.string() + "'\nwait\nwhile :; do sleep 1; done\n");
    // A worker that hangs on its request, deaf to its closed pipe: only the group's kill ends it.
    WorkerProcess w(launched_fake("hang", {launcher}));
    w.send({"run", {}, {}}, 10s);
    pid_t worker = 0;
    for (int i = 0; i < 200 && worker <= 0; ++i) {
        std::this_thread::sleep_for(20ms);
        std::ifstream(pid_file) >> worker;
    }
    ASSERT_GT(worker, 0);
    const auto start = std::chrono::steady_clock::now();
    w.kill();
    EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);  // the kill never waits on the launcher
    EXPECT_FALSE(w.running());
    EXPECT_TRUE(wait_for_killed_workers(10s));
    for (int i = 0; i < 100 && !process_gone(worker); ++i) std::this_thread::sleep_for(50ms);
    EXPECT_TRUE(process_gone(worker)) << "the worker " << worker << " outlived its killed launcher";
}

TEST(WorkerLauncher, ALauncherEndedByASignalIsLostNotDied) {
    WorkerProcess w(launched_fake("echo", {"sh", "-c", "kill -9 $$", "sh"}));
    try {
        w.request({"hello", {}, {}}, 10s);
        FAIL();
    } catch (const WorkerFailure& e) {
        EXPECT_EQ(e.kind(), WorkerFailure::Kind::LauncherLost) << e.what();
        EXPECT_NE(std::string(e.what()).find("launcher 'sh -c 'kill -9 $$' sh'"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("signal 9"), std::string::npos) << e.what();
    }
}

// The worker answered and then died: through a launcher that passes its exit status on, as srun
// does, that is the worker's own death (a variant's crash), not the launcher's.
TEST(WorkerLauncher, AWorkerThatDiesAfterAnsweringThroughItsLauncherDied) {
    WorkerProcess w(launched_fake("sticky", {"sh", "-c", "\"$@\"; exit 134", "sh"}));
    EXPECT_EQ(w.request({"run", {}, {}}, 10s).get("sticky"), "1");
    try {
        w.receive("run", 10s);
        FAIL();
    } catch (const WorkerFailure& e) {
        EXPECT_EQ(e.kind(), WorkerFailure::Kind::Died) << e.what();
        EXPECT_NE(std::string(e.what()).find("exited with status 134"), std::string::npos) << e.what();
    }
}

TEST(WorkerLauncher, ALauncherNotOnPathIsNamedWithWhatToDo) {
    try {
        WorkerProcess w(launched_fake("echo", {"gi-no-such-launcher", "-N1"}));
        FAIL();
    } catch (const Error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("gi-no-such-launcher -N1"), std::string::npos) << what;
        EXPECT_NE(what.find("--worker-launcher"), std::string::npos) << what;
    }
}

}  // namespace
}  // namespace gi::worker
