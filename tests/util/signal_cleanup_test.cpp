// util/signal_cleanup: a run ended by SIGINT or SIGTERM leaves none of its temporary folders behind
// (issue 39, class 10: each interrupted evolve left a gi-compile-XXXXXX folder in /tmp), and still
// ends by that signal, as before.
#include "util/signal_cleanup.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

class SignalCleanup : public ::testing::Test {
protected:
    void SetUp() override {
        dir = test::fresh_temp_dir("gi-signal-cleanup-test");
        fs::create_directories(dir);
    }
    // A child a failed expectation left waiting is not left behind (it would wait for ever).
    void TearDown() override {
        for (const pid_t child : children) {
            int status = 0;
            if (::waitpid(child, &status, WNOHANG) == 0) {
                ::kill(child, SIGKILL);
                ::waitpid(child, &status, 0);
            }
        }
    }

    // A child that makes a TemporaryDirectory under `dir` (files and a subfolder in it), says so
    // through a pipe, and waits for signals. `ignore_sigint`: as a shell's background job starts.
    pid_t start_child(bool ignore_sigint, const std::function<void()>& first = [] {}) {
        int ready[2];
        if (::pipe(ready) != 0) return -1;
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(ready[0]);
            if (ignore_sigint) ::signal(SIGINT, SIG_IGN);
            ::setenv("TMPDIR", dir.c_str(), 1);
            try {
                first();
                TemporaryDirectory scratch("gi-compile");
                fs::create_directories(scratch.path() / "sub" / "deeper");
                std::ofstream(scratch.path() / "variant.cu") << "code";
                std::ofstream(scratch.path() / "sub" / "deeper" / "v.cubin") << "cubin";
                (void)!::write(ready[1], "1", 1);
                for (;;) ::pause();
            } catch (...) {
            }
            ::_exit(3);
        }
        ::close(ready[1]);
        if (pid > 0) children.push_back(pid);
        char byte = 0;
        const bool started = ::read(ready[0], &byte, 1) == 1;
        ::close(ready[0]);
        return started ? pid : -1;
    }

    int folders() const {
        int n = 0;
        for (const auto& entry : fs::directory_iterator(dir)) n += entry.path().filename().string().rfind("gi-compile-", 0) == 0;
        return n;
    }

    fs::path dir;
    std::vector<pid_t> children;
};

TEST_F(SignalCleanup, SigtermAndSigintRemoveTheTemporaryFoldersAndStillEndTheProcessBySignal) {
    for (const int signal : {SIGTERM, SIGINT}) {
        const pid_t child = start_child(false);
        ASSERT_GT(child, 0);
        ASSERT_EQ(folders(), 1);
        ::kill(child, signal);
        int status = 0;
        ASSERT_EQ(::waitpid(child, &status, 0), child);
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "status " << status;
        EXPECT_EQ(folders(), 0) << "signal " << signal << " left the temporary folder";
    }
}

TEST_F(SignalCleanup, AnIgnoredSigintStaysIgnored) {
    const pid_t child = start_child(true);
    ASSERT_GT(child, 0);
    ::kill(child, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    int status = 0;
    EXPECT_EQ(::waitpid(child, &status, WNOHANG), 0) << "an ignored SIGINT ended the process";
    EXPECT_EQ(folders(), 1);
    ::kill(child, SIGTERM);
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_EQ(folders(), 0);
}

TEST_F(SignalCleanup, AFolderIsForgottenWithItsRegistration) {
    const fs::path kept = dir / "kept";
    fs::create_directories(kept);
    const pid_t child = start_child(false, [&] {
        RemovedOnFatalSignal registration(kept);
        if (!registration.registered()) ::_exit(4);
    });
    ASSERT_GT(child, 0);
    ::kill(child, SIGTERM);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFSIGNALED(status)) << "status " << status;
    EXPECT_TRUE(fs::exists(kept));
    EXPECT_EQ(folders(), 0);
    EXPECT_FALSE(RemovedOnFatalSignal("relative/path").registered());
}

}  // namespace
}  // namespace gi
