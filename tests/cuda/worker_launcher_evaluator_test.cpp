// The cuda evaluator with its workers started through a launcher (--worker-launcher): a worker lost
// with its launcher in the middle of a variant's request is replaced and the variant run again,
// never judged; a launcher that keeps losing them stops the run, naming it; a variant that crashes
// its worker, before "started" too, is still a crash. The fake worker (mode replay) pauses before each variant's
// "started" (GI_FAKE_PAUSE_MS), and the launcher script kills it there.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <set>

#include "cuda/cuda_evaluator.hpp"
#include "../support/fake_worker_fixture.hpp"
#include "util/error.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

class LaunchedWorkers : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override {
        set_up(gpu_test::kScaleKernel, "128,256", 1);
        ::setenv("GI_FAKE_PAUSE_MS", "300", 1);
    }
    void TearDown() override {
        ::unsetenv("GI_FAKE_PAUSE_MS");
        ::unsetenv("GI_FAKE_PAUSE_RERUNS");
        ::unsetenv("GI_FAKE_CRASH_BEFORE_STARTED");
        ::unsetenv("GI_FAKE_NO_SHARED_FOLDER");
        ::unsetenv("GI_WORKER_CASE_STORE");
        FakeWorkerEvaluatorTest::TearDown();
    }

    // A launcher that runs the worker and, in the lives `doomed` (a shell test on the number of
    // lives so far, $n), kills it once it pauses on a variant and exits 1, as srun does when its node
    // goes (and leaves the file `lost`).
    std::string launcher(const std::string& doomed) const {
        const fs::path script = folder_.path() / "launch";
        const fs::path lives = folder_.path() / "lives";
        std::ofstream(script) << "#!/bin/sh\n"
                              << "echo life >> '" << lives.string() << "'; n=$(grep -c . '" << lives.string() << "')\n"
                              << "exec 3<&0; \"$@\" 0<&3 3<&- & w=$!\n"  // a background job's stdin is /dev/null otherwise
                              << "if " << doomed << "; then\n"
                              << "  while kill -0 $w 2>/dev/null; do\n"
                              << "    if grep -q \"^$w pausing \" '" << log_.string() << "' 2>/dev/null; then kill -9 $w; touch '"
                              << (folder_.path() / "lost").string() << "'; exit 1; fi\n"
                              << "    sleep 0.02\n"
                              << "  done\n"
                              << "fi\n"
                              << "wait $w\n";
        fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
        return script.string();
    }

    CudaEvaluatorOptions launched(const std::string& doomed) const {
        CudaEvaluatorOptions o = options(1);
        o.worker_launcher = {launcher(doomed)};
        return o;
    }

    std::set<std::string> pausing_workers() const {
        std::set<std::string> pids;
        for (const gpu_test::FakeWorkerEvent& e : events())
            if (e.what == "pausing") pids.insert(e.pid);
        return pids;
    }
};

// The main worker (the launcher's first life) is lost mid-request: the variant runs again on
// another worker and is judged by that run.
TEST_F(LaunchedWorkers, AWorkerLostWithItsLauncherIsReplacedAndItsVariantRunAgain) {
    CudaEvaluator e(grammar_, launched("[ $n -eq 1 ]"));
    const BatchResult r = e.evaluate({with_block("256")}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
    EXPECT_EQ(pausing_workers().size(), 2u);
    EXPECT_EQ(e.stats().workers.launcher_losses, 1);
}

// Every worker is lost, the fresh one that runs the original after the variant's retries too
// (GI_FAKE_PAUSE_RERUNS: the original's reruns pause once a worker was lost): the launcher is
// broken, and the run stops.
TEST_F(LaunchedWorkers, ALauncherThatKeepsLosingWorkersStopsTheRunNamingIt) {
    ::setenv("GI_FAKE_PAUSE_RERUNS", (folder_.path() / "lost").c_str(), 1);
    CudaEvaluatorOptions o = launched("true");
    o.launcher_retries = 2;
    CudaEvaluator e(grammar_, o);
    try {
        e.evaluate({with_block("256")}, 0);
        FAIL() << "a launcher that loses every worker must stop the run";
    } catch (const Error& error) {
        const std::string what = error.what();
        EXPECT_NE(what.find(o.worker_launcher.front()), std::string::npos) << what;
        EXPECT_NE(what.find("4 workers in a row"), std::string::npos) << what;
        EXPECT_NE(what.find("the original kernel's"), std::string::npos) << what;
    }
    ::unsetenv("GI_FAKE_PAUSE_RERUNS");
    EXPECT_EQ(pausing_workers().size(), 4u);
}

// A variant that kills its worker before "started" (GI_FAKE_CRASH_BEFORE_STARTED: as one that
// crashes it while its module loads) looks like a lost node every time; the original then runs on
// a fresh worker, so the variant is judged a crash and the batch goes on.
TEST_F(LaunchedWorkers, AVariantThatKillsItsWorkerBeforeStartedIsACrashNotAStoppedRun) {
    ::setenv("GI_FAKE_CRASH_BEFORE_STARTED", "128", 1);
    CudaEvaluatorOptions o = launched("false");
    o.launcher_retries = 2;
    CudaEvaluator e(grammar_, o);
    BatchResult r;
    try {
        r = e.evaluate({with_block("128"), with_block("256"), with_block("128")}, 0);
    } catch (const Error& error) {
        ::unsetenv("GI_FAKE_CRASH_BEFORE_STARTED");
        FAIL() << "a variant that kills its worker must not stop the run: " << error.what();
    }
    ::unsetenv("GI_FAKE_CRASH_BEFORE_STARTED");
    ASSERT_EQ(r.results.size(), 3u);
    for (const int i : {0, 2}) {
        EXPECT_EQ(r.results[i].status, EvalStatus::Crash) << r.results[i].detail;
        EXPECT_NE(r.results[i].detail.find("lost 3 times in a row through the launcher"), std::string::npos) << r.results[i].detail;
    }
    EXPECT_EQ(r.results[1].status, EvalStatus::Ok) << r.results[1].detail;
    EXPECT_EQ(e.stats().workers.launcher_losses, 3);  // the second block-128 variant is the first's duplicate
}

// Block 128 aborts the fake worker after "started": through a launcher that passes its worker's
// exit status on, that is still the variant's crash, run once.
TEST_F(LaunchedWorkers, AVariantThatCrashesItsLaunchedWorkerIsStillACrash) {
    CudaEvaluator e(grammar_, launched("false"));
    const BatchResult r = e.evaluate({with_block("128")}, 0);
    ASSERT_EQ(r.results.size(), 1u);
    EXPECT_EQ(r.results[0].status, EvalStatus::Crash) << r.results[0].detail;
    EXPECT_EQ(pausing_workers().size(), 1u);
    EXPECT_EQ(e.stats().workers.launcher_losses, 0);
}

// A node that does not see the master's folder (GI_FAKE_NO_SHARED_FOLDER) is sent each case once:
// the main worker stores it, the spare and every later worker of the node read the stored copy,
// and a later run on the same store sends nothing.
TEST_F(LaunchedWorkers, CasesReachWorkersWithoutASharedFolderOncePerNode) {
    const fs::path store = folder_.path() / "store";
    ::setenv("GI_FAKE_NO_SHARED_FOLDER", "1", 1);
    ::setenv("GI_WORKER_CASE_STORE", store.c_str(), 1);
    auto count = [&](const std::string& what) {
        int n = 0;
        for (const gpu_test::FakeWorkerEvent& e : events()) n += e.what == what;
        return n;
    };
    {
        CudaEvaluator e(grammar_, launched("false"));
        const BatchResult r = e.evaluate({with_block("256"), with_block("128"), with_block("256")}, 0);
        ASSERT_EQ(r.results.size(), 3u);
        EXPECT_EQ(r.results[0].status, EvalStatus::Ok) << r.results[0].detail;
        EXPECT_EQ(r.results[1].status, EvalStatus::Crash) << r.results[1].detail;
        EXPECT_EQ(r.results[2].status, EvalStatus::Ok) << r.results[2].detail;
        EXPECT_EQ(count("case-stored"), 1);
        EXPECT_EQ(e.stats().workers.cases_sent, 1);
        EXPECT_GE(count("case-from-store"), 2);  // the main worker after storing it, and its replacement
    }
    const int from_store = count("case-from-store");
    {
        CudaEvaluator e(grammar_, launched("false"));
        EXPECT_EQ(e.evaluate({with_block("256")}, 0).results.at(0).status, EvalStatus::Ok);
        EXPECT_EQ(e.stats().workers.cases_sent, 0);
    }
    EXPECT_EQ(count("case-stored"), 1);
    EXPECT_GT(count("case-from-store"), from_store);
    ::unsetenv("GI_FAKE_NO_SHARED_FOLDER");
    ::unsetenv("GI_WORKER_CASE_STORE");
}

// Where the node sees the master's folder (here, the same machine), nothing is sent or stored.
TEST_F(LaunchedWorkers, AWorkerThatSeesTheMastersFolderReadsItsCasesThere) {
    ::setenv("GI_WORKER_CASE_STORE", (folder_.path() / "store").c_str(), 1);
    CudaEvaluator e(grammar_, launched("false"));
    EXPECT_EQ(e.evaluate({with_block("256"), with_block("128"), with_block("256")}, 0).results.at(2).status, EvalStatus::Ok);
    for (const gpu_test::FakeWorkerEvent& event : events()) {
        EXPECT_NE(event.what, "case-missing");
        EXPECT_NE(event.what, "case-from-store");
    }
    EXPECT_EQ(e.stats().workers.cases_sent, 0);
    EXPECT_FALSE(fs::exists(folder_.path() / "store"));
    ::unsetenv("GI_WORKER_CASE_STORE");
}

}  // namespace
}  // namespace gi
