// NVRTC's compile processes started through a launcher (--compile-launcher; cuda/nvrtc_processes.hpp):
// the launcher's command line, the kernel's headers sent through the protocol once per process (the
// request names no folder of this machine), a process lost with its launcher replaced and its
// compile run again, never judged, a launcher that keeps losing them stopping the run with its
// name, and a variant that kills NVRTC or does not compile still a compile error. The launchers
// are shell scripts that record their use and exec the command (or die).
#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <sstream>

#include "compile/nvrtc_messages.hpp"
#include "cuda/cuda_run_notes.hpp"
#include "cuda/nvrtc_processes.hpp"
#include "cuda/variant_builder.hpp"
#include "../support/fake_worker_fixture.hpp"
#include "process/process.hpp"
#include "util/error.hpp"

namespace gi {
namespace compile_launcher_test {
namespace fs = std::filesystem;

const char* kKernelWithHeader = R"(#include "scale_math.cuh"
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = twice(in[i]);
}
)";

const char* kHeader = "// GI_HEADER_MARKER_1f3a\n__device__ inline float twice(float x) { return 2.0f * x; }\n";

std::string slurp(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

int count_of(const std::string& text, const std::string& part) {
    int n = 0;
    for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

class CompileLauncher : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available()) GTEST_SKIP() << "this build has no NVRTC";
        kernel_dir_ = dir_.path() / "kernel";
        fs::create_directories(kernel_dir_);
        std::ofstream(kernel_dir_ / "scale_math.cuh") << kHeader;
    }

    // A launcher script: it notes each life in `lives` (a line with its arguments), copies what it
    // is sent into `sent`, and runs the command, except in the lives `doomed` (a shell test on $n, the
    // lives so far), where it kills itself first, as srun does when its node goes.
    std::string launcher(const std::string& doomed = "false") const {
        const fs::path script = dir_.path() / "launch";
        std::ofstream(script) << "#!/bin/sh\n"
                              << "echo \"$@\" >> '" << lives().string() << "'; n=$(grep -c . '" << lives().string() << "')\n"
                              << "if " << doomed << "; then kill -9 $$; fi\n"
                              // The command becomes the launcher (exec), its stdin copied on the way by tee
                              // (a background job's stdin is /dev/null unless given).
                              << "f='" << dir_.path().string() << "/fifo.'$$; mkfifo \"$f\"; exec 3<&0\n"
                              << "tee -a '" << sent().string() << "' <&3 > \"$f\" 3<&- & exec \"$@\" < \"$f\" 3<&-\n";
        fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
        return script.string();
    }
    fs::path lives() const { return dir_.path() / "lives"; }
    fs::path sent() const { return dir_.path() / "sent"; }
    int life_count() const { return count_of(slurp(lives()), "\n"); }

    NvrtcProcessOptions launched(const std::string& launcher_script, std::string executable = GI_TOOL_PATH, int retries = 3) const {
        NvrtcProcessOptions o;
        o.executable = std::move(executable);
        o.timeout = std::chrono::seconds(120);
        o.launcher = {launcher_script};
        o.launcher_retries = retries;
        return o;
    }

    DeviceCompileRequest request(const std::string& source = kKernelWithHeader) const {
        DeviceCompileRequest r;
        r.source = source;
        r.include_dirs = {kernel_dir_.string()};
        return r;
    }

    TemporaryDirectory dir_{"gi-compile-launcher"};
    fs::path kernel_dir_;
};

// Every compile runs in a process the launcher started (`LAUNCHER gi-tool --nvrtc-server`), with
// the same result as here; the header the kernel includes from its folder goes through the
// protocol, once to a process however many compiles it serves.
TEST_F(CompileLauncher, CompilesRunThroughItAndTheHeadersTravelOncePerProcess) {
    NvrtcProcesses processes(launched(launcher()));
    const DeviceCompileResult here = compile_with_nvrtc(request());
    ASSERT_TRUE(here.ok) << here.log;
    for (int k = 0; k < 3; ++k) {
        const DeviceCompileResult r = processes.compile(request(std::string(kKernelWithHeader) + "// variant " + std::to_string(k) + "\n"));
        ASSERT_TRUE(r.ok) << r.log;
        EXPECT_EQ(r.compiler, "nvrtc");
    }
    EXPECT_EQ(processes.compile(request()).cubin, here.cubin);
    EXPECT_EQ(slurp(lives()), std::string(GI_TOOL_PATH) + " --nvrtc-server\n");
    const std::string protocol = slurp(sent());
    EXPECT_EQ(count_of(protocol, "GI_HEADER_MARKER_1f3a"), 1) << "the header was not sent exactly once";
    EXPECT_EQ(protocol.find(kernel_dir_.string()), std::string::npos) << "a request named a folder of this machine";
    EXPECT_EQ(processes.stats().started, 1);
    EXPECT_EQ(processes.stats().launcher_lost, 0);
    // A variant that does not compile is a compile error there too, with NVRTC's messages.
    const DeviceCompileResult broken = processes.compile(request("__global__ void k() { undeclared = 1; }"));
    EXPECT_FALSE(broken.ok);
    EXPECT_NE(broken.log.find("undeclared"), std::string::npos) << broken.log;
    EXPECT_EQ(processes.stats().lost, 0);
}

// Several compiles at once: a process each, each sent the header once.
TEST_F(CompileLauncher, CompilesAtOnceGetAProcessEach) {
    NvrtcProcesses processes(launched(launcher()));
    std::vector<std::future<DeviceCompileResult>> compiles;
    for (int k = 0; k < 3; ++k)
        compiles.push_back(std::async(std::launch::async, [&, k] {
            return processes.compile(request(std::string(kKernelWithHeader) + "// at once " + std::to_string(k) + "\n"));
        }));
    for (auto& f : compiles) EXPECT_TRUE(f.get().ok);
    EXPECT_EQ(life_count(), processes.stats().started);
    EXPECT_EQ(count_of(slurp(sent()), "GI_HEADER_MARKER_1f3a"), processes.stats().started);
}

// A process lost with its launcher (killed: its node went) judges nothing: another is started and
// the compile runs again there.
TEST_F(CompileLauncher, AProcessLostWithItsLauncherIsReplacedAndTheCompileRunAgain) {
    const std::string script = launcher("[ $n -eq 1 ]");
    NvrtcProcesses processes(launched(script));
    testing::internal::CaptureStderr();
    const DeviceCompileResult r = processes.compile(request());
    const std::string said = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.cubin, compile_with_nvrtc(request()).cubin);
    EXPECT_EQ(life_count(), 2);
    EXPECT_EQ(processes.stats().launcher_lost, 1);
    EXPECT_EQ(processes.stats().lost, 0);
    EXPECT_NE(said.find("NVRTC's compile process started through the launcher '" + script + "' was lost"),
              std::string::npos)
        << said;
}

// A launcher that loses every process: after the retries the compile runs once here, answers, so
// the launcher is what fails: the run stops, naming it and the option.
TEST_F(CompileLauncher, ALauncherThatKeepsLosingThemStopsTheRunNamingIt) {
    const std::string script = launcher("true");
    NvrtcProcesses processes(launched(script, GI_TOOL_PATH, 2));
    testing::internal::CaptureStderr();
    try {
        processes.compile(request());
        ADD_FAILURE() << "a launcher that loses every process was not noticed";
    } catch (const CompileLauncherError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("3 NVRTC processes in a row lost through the launcher '" + script + "'"), std::string::npos) << what;
        EXPECT_NE(what.find("--compile-launcher"), std::string::npos) << what;
    }
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(life_count(), 3);
    EXPECT_EQ(processes.stats().launcher_lost, 3);
}

// A variant on which NVRTC's process dies, through the launcher and here alike, is a compile error
// (the process stands in for NVRTC crashing on it), as without a launcher.
TEST_F(CompileLauncher, AVariantThatKillsNvrtcIsStillACompileError) {
    const std::string dies = (dir_.path() / "dies").string();
    std::ofstream(dies) << "#!/bin/sh\necho 'nvrtc: internal error' >&2\nexit 3\n";
    fs::permissions(dies, fs::perms::owner_all, fs::perm_options::add);
    NvrtcProcesses processes(launched(launcher(), dies, 1));
    testing::internal::CaptureStderr();
    const DeviceCompileResult r = processes.compile(request());
    testing::internal::GetCapturedStderr();
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("lost 2 times in a row through the launcher on this variant"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("nvrtc: internal error"), std::string::npos) << r.log;
    EXPECT_EQ(processes.stats().launcher_lost, 2);
    EXPECT_EQ(processes.stats().lost, 1);
}

// A launcher that is not there stops the run, naming it (a compile here would hide the mistake).
TEST_F(CompileLauncher, ALauncherThatCannotStartStopsTheRun) {
    NvrtcProcesses processes(launched("no-such-launcher-gi"));
    try {
        processes.compile(request());
        ADD_FAILURE() << "a missing launcher was not noticed";
    } catch (const CompileLauncherError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("'no-such-launcher-gi' is not on PATH (check --compile-launcher)"), std::string::npos) << what;
    }
}

// NVRTC's in-memory headers go by name: two files of one include name cannot both reach a process
// elsewhere, and the run is told so, naming both.
TEST_F(CompileLauncher, TwoHeadersOfOneNameAreRefusedNamingBoth) {
    for (const char* part : {"a", "b"}) {
        fs::create_directories(kernel_dir_ / part);
        std::ofstream(kernel_dir_ / part / "x.cuh") << "#include \"common.cuh\"\n";
        std::ofstream(kernel_dir_ / part / "common.cuh") << "#define FROM_" << part << " 1\n";
    }
    NvrtcProcesses processes(launched(launcher()));
    try {
        processes.compile(request("#include \"a/x.cuh\"\n#include \"b/x.cuh\"\n__global__ void k() {}\n"));
        ADD_FAILURE() << "two headers of one name were not refused";
    } catch (const CompileLauncherError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("\"common.cuh\" stands for both"), std::string::npos) << what;
        EXPECT_NE(what.find((kernel_dir_ / "a" / "common.cuh").string()), std::string::npos) << what;
    }
    EXPECT_FALSE(fs::exists(lives())) << "nothing was to be started";
}

// Without a launcher a request is what it was: the folders, the headers whole, no hashes.
TEST(CompileLauncherMessages, WithoutALauncherARequestIsUnchanged) {
    DeviceCompileRequest r;
    r.source = "__global__ void k() {}";
    r.include_dirs = {"/kernel"};
    r.headers = {{"a.h", "int a;"}};
    const worker::Message m = to_message(r);
    EXPECT_EQ(m.get("include.0"), "/kernel");
    EXPECT_EQ(m.fields.count("header-sha256.count"), 0u);
    EXPECT_EQ(compile_request_from(m).headers, r.headers);
    // With a process's known hashes: the text once, then the hash alone.
    std::set<std::string> known;
    std::map<std::string, std::string> store;
    const worker::Message first = to_message(r, &known), second = to_message(r, &known);
    EXPECT_EQ(first.payload, r.source + "int a;");
    EXPECT_EQ(second.payload, r.source);
    EXPECT_EQ(compile_request_from(first, &store).headers, r.headers);
    EXPECT_EQ(compile_request_from(second, &store).headers, r.headers);
    std::map<std::string, std::string> empty;
    EXPECT_THROW(compile_request_from(second, &empty), Error);  // a hash it was never sent
}

// In the evaluator's builder a launcher that cannot be used stops the run: its error is not taken
// for NVRTC refusing the options (which would send every variant to nvcc, unnoticed).
TEST_F(CompileLauncher, TheBuilderDoesNotFallBackToNvccWhenTheLauncherFails) {
    CudaEvaluatorOptions options;
    options.function = "scale";
    options.nvrtc_server = GI_TOOL_PATH;
    options.compile_launcher = {launcher("true")};
    options.launcher_retries = 0;
    options.include_dirs = {kernel_dir_.string()};
    VariantBuilder builder(options, "sm_90", kKernelWithHeader, "scale", {}, kernel_dir_);
    testing::internal::CaptureStderr();
    EXPECT_THROW(builder.prepare(), CompileLauncherError);
    testing::internal::GetCapturedStderr();
}

// The cuda evaluator with a compile launcher (the fake worker runs the variants): every compile,
// the original's first, goes through it; the process its first life loses is replaced and judges
// nothing; the verdicts are those of a run without it, and the run's notes say where compiles ran.
class LaunchedCompiles : public gpu_test::FakeWorkerEvaluatorTest {
protected:
    void SetUp() override { set_up(gpu_test::kScaleKernel, "128,256", 1); }

    std::vector<EvalStatus> statuses(const CudaEvaluatorOptions& o, std::vector<std::string>* notes = nullptr,
                                     NvrtcProcessStats* processes = nullptr) {
        CudaEvaluator e(grammar_, o);
        const BatchResult r = e.evaluate({with_block("256"), with_block("128")}, 0);
        std::vector<EvalStatus> out;
        for (const EvalResult& result : r.results) out.push_back(result.status);
        if (notes) *notes = e.report().notes;
        if (processes) *processes = e.stats().build.nvrtc_processes;
        return out;
    }
};

TEST_F(LaunchedCompiles, TheEvaluatorCompilesThroughTheLauncherAndJudgesAsWithout) {
    CudaEvaluatorOptions o = options(1);
    o.nvrtc_server = GI_TOOL_PATH;
    const std::vector<EvalStatus> here = statuses(o);
    const fs::path script = folder_.path() / "compile-launch", lives = folder_.path() / "compile-lives";
    std::ofstream(script) << "#!/bin/sh\necho \"$@\" >> '" << lives.string() << "'\n"
                          << "if [ \"$(grep -c . '" << lives.string() << "')\" -eq 1 ]; then kill -9 $$; fi\nexec \"$@\"\n";
    fs::permissions(script, fs::perms::owner_all, fs::perm_options::add);
    o.compile_launcher = {script.string()};
    std::vector<std::string> notes;
    NvrtcProcessStats processes;
    testing::internal::CaptureStderr();
    const std::vector<EvalStatus> there = statuses(o, &notes, &processes);
    testing::internal::GetCapturedStderr();
    EXPECT_EQ(there, here);
    for (const EvalStatus status : there) EXPECT_NE(status, EvalStatus::CompileError);
    EXPECT_EQ(processes.launcher_lost, 1);
    EXPECT_EQ(processes.lost, 0);
    EXPECT_EQ(count_of(slurp(lives), std::string(GI_TOOL_PATH) + " --nvrtc-server\n"), processes.started);
    std::string all;
    for (const std::string& note : notes) all += note + "\n";
    EXPECT_NE(all.find("NVRTC's compiles ran where the launcher '" + script.string() + "' (--compile-launcher) put them: " +
                       std::to_string(processes.started) + " processes started, 1 lost with it and replaced"),
              std::string::npos)
        << all;
}

// A compile launcher that started nothing (every variant compiled with nvcc, which stays here) is
// said to have done nothing; without one the notes do not mention it.
TEST(CompileLauncherNotes, ALauncherThatStartedNothingIsSaidToHaveMovedNothing) {
    CudaEvaluatorStats stats;
    stats.build.compiler = "nvcc";
    CudaEvaluatorOptions options;
    std::vector<CaseSlot> slots(1);
    std::string without;
    for (const std::string& note : cuda_run_notes({stats, options, slots, false, false, ""})) without += note;
    EXPECT_EQ(without.find("compile launcher"), std::string::npos) << without;
    options.compile_launcher = {"ssh", "build-node"};
    options.compile_launcher_option = "--compile-on-workers (--worker-launcher)";
    std::string with;
    for (const std::string& note : cuda_run_notes({stats, options, slots, false, false, ""})) with += note;
    EXPECT_NE(with.find("the compile launcher 'ssh build-node' (--compile-on-workers) started nothing: every compile ran "
                        "here (nvcc, which the launcher does not move)"),
              std::string::npos)
        << with;
}

}  // namespace compile_launcher_test
}  // namespace gi
