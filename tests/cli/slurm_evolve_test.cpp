// `gi-tool evolve --evaluator cuda --worker-launcher "srun ..."` through a real single-node Slurm,
// which tests/slurm/run_slurm_test.sh starts (ctest -L slurm) and names in GI_SLURM_LAUNCHER; skipped
// elsewhere. The workers are the fake worker (tests/support/fake_worker.cpp, mode replay) started
// by srun as Slurm job steps, their node pretending not to see the master's folder, so the cases
// also travel through srun's stdin; compiles are real (NVRTC), in gi-tool --nvrtc-server processes
// that srun starts too (--compile-on-workers). The test prints how many Slurm jobs the run must
// have made (GI_SLURM_EXPECTED_JOBS=N: its workers' and its compile processes'), which the script
// checks against slurmctld's log.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "../support/fake_worker_fixture.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

class SlurmEvolve : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override {
        if (!std::getenv("GI_SLURM_LAUNCHER"))
            GTEST_SKIP() << "no Slurm to launch workers with: tests/slurm/run_slurm_test.sh (ctest -L slurm) starts one";
        set_up(gpu_test::kScaleKernel, "128,160,192,224,256", 1);
        ::setenv("GI_FAKE_NO_SHARED_FOLDER", "1", 1);
        ::setenv("GI_WORKER_CASE_STORE", (folder_.path() / "node-store").c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("GI_FAKE_NO_SHARED_FOLDER");
        ::unsetenv("GI_WORKER_CASE_STORE");
        FakeWorkerEvaluatorTest::TearDown();
    }
};

TEST_F(SlurmEvolve, EvolveRunsEveryWorkerAsASlurmJobStep) {
    if (IsSkipped()) return;
    const std::vector<std::string> args = {
        "evolve", kernel_.string(), "--function", "scale", "--param", "BLOCK=128,160,192,224,256", "--block", "BLOCK",
        "--grid", "ceil(n/BLOCK)", "--cases", (folder_.path() / "cases").string(), "--set-aside", "0", "--evaluator", "cuda",
        "--worker", std::filesystem::read_symlink("/proc/self/exe").string(), "--worker-launcher",
        std::getenv("GI_SLURM_LAUNCHER"), "--compile-on-workers", "--arch", "sm_90", "--timeout-margin-ms", "2000", "--spare-workers", "1",
        "--sanitizer", passing_sanitizer(folder_.path() / "sanitized.log"), "--sanitize-sessions", "0", "--generations", "2",
        "--population", "8", "--seed", "3", "--no-pre-tune", "--no-post-tune", "--no-minimise", "--quiet", "--out",
        (folder_.path() / "run").string()};
    const ProcessResult r = test::gi_tool(args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    std::set<std::string> jobs, variant_pids, job_pids;
    int stored = 0;
    for (const gpu_test::FakeWorkerEvent& e : events()) {
        if (e.what == "slurm-job") {
            jobs.insert(e.slot);
            job_pids.insert(e.pid);
        }
        if (e.what == "variant") variant_pids.insert(e.pid);
        stored += e.what == "case-stored";
    }
    EXPECT_FALSE(jobs.empty()) << "no worker ran under Slurm";
    EXPECT_FALSE(variant_pids.empty()) << "no variant ran";
    for (const std::string& pid : variant_pids) EXPECT_TRUE(job_pids.count(pid)) << "worker " << pid << " ran outside Slurm";
    EXPECT_EQ(stored, 1) << "the case was not sent through srun exactly once";
    // The run's note on where its compiles ran: started through srun, none lost.
    const std::string note = "NVRTC's compiles ran where the launcher '" + std::string(std::getenv("GI_SLURM_LAUNCHER")) +
                             "' (--compile-on-workers) put them: ";
    const std::size_t at = r.out.find(note);
    ASSERT_NE(at, std::string::npos) << r.out;
    const int compile_processes = std::atoi(r.out.c_str() + at + note.size());
    EXPECT_GE(compile_processes, 1) << r.out;
    EXPECT_NE(r.out.find(" processes started, 0 lost with it", at), std::string::npos) << r.out;
    std::cout << "GI_SLURM_EXPECTED_JOBS=" << jobs.size() + static_cast<std::size_t>(compile_processes) << "\n";
}

}  // namespace
}  // namespace gi
