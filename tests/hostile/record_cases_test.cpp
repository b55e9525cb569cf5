// Recorded test cases, the programs that record them and the kernel files they come from, as a
// careless or hostile user treated them (issue 39, classes 7, 17, 20 and 21: the probe's F1, F5,
// C3-C5, C10, C17, D12 and D14), each once a wrong result, now a clear error or a correct one.
// No GPU: the "programs" are shell scripts that put a ready-made case into $GI_RECORD_DIR the way
// the recorder does (a hidden folder renamed to the first free number).
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "../support/gpu_fixture.hpp"
#include "../support/toolkit.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "process/process.hpp"
#include "testcase/case_io.hpp"

namespace gi::record_cases_test {
namespace {
namespace fs = std::filesystem;

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// One launch of k(float* out, const float* in, int n) (gpu_fixture's scale case under another name):
// buffer 0 the outputs it changed, buffer 1 the inputs.
TestCase launch_of_k(const std::string& kernel = "k") {
    TestCase tc = gpu_test::scale_case(4);
    tc.kernel = kernel;
    return tc;
}

// Waits up to 30 s for `path` to appear.
bool appears(const fs::path& path) {
    for (int i = 0; i < 3000 && !fs::exists(path); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return fs::exists(path);
}

class RecordCases : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = test::fresh_temp_dir("gi-record-cases");
        fs::create_directories(dir_);
        kernel_ = dir_ / "scale.cu";
        std::ofstream(kernel_) << "__global__ void k(float* out, const float* in, int n) {\n"
                                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = 2 * in[i];\n}\n";
        template_ = write_test_case(launch_of_k(), dir_ / "template");
    }
    void TearDown() override { fs::remove_all(dir_); }

    // A program at `path` that records one case of k, as the recorder would, then runs `then`.
    fs::path program(const fs::path& path, const std::string& then) const {
        fs::create_directories(path.parent_path());
        std::ofstream(path) << "#!/bin/sh\nset -e\nn=0\n"
                               "while [ -e \"$GI_RECORD_DIR/k-$(printf %04d $n)\" ]; do n=$((n+1)); done\n"
                               "mkdir -p \"$GI_RECORD_DIR\"\ncp -r " << quoted(template_) << " \"$GI_RECORD_DIR/.tmp-k-$$\"\n"
                               "mv -T \"$GI_RECORD_DIR/.tmp-k-$$\" \"$GI_RECORD_DIR/k-$(printf %04d $n)\"\n"
                            << then << "\n";
        fs::permissions(path, fs::perms::owner_all);
        return path;
    }
    std::string record(const fs::path& out, const fs::path& prog) const {
        return "record " + quoted(kernel_) + " --function k --out " + quoted(out) + " -- " + quoted(prog);
    }

    fs::path dir_, kernel_, template_;
};

// Class 7 (F1): a failing run removed the cases another run recorded into the same folder meanwhile.
TEST_F(RecordCases, Class7_AFailingRecordingRemovesItsOwnCasesOnlyNotThoseOfARunBesideIt) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool record lists the kernel's variables with NVRTC";
    const fs::path shared = dir_ / "shared";
    write_test_case(launch_of_k(), shared);  // k-0000, from an earlier run
    const fs::path a = program(dir_ / "a.sh", "touch " + quoted(dir_ / "a-recorded") + "\n"
                                              "i=0; while [ ! -e " + quoted(dir_ / "go") + " ] && [ $i -lt 3000 ]; do "
                                              "sleep 0.01; i=$((i+1)); done\nexit 1");
    const fs::path b = program(dir_ / "b.sh", "exit 0");
    auto first = std::async(std::launch::async, [&] { return test::run_gi_tool(record(shared, a)); });
    ASSERT_TRUE(appears(dir_ / "a-recorded"));
    const test::ToolRun second = test::run_gi_tool(record(shared, b));
    std::ofstream(dir_ / "go") << "";
    const test::ToolRun failed = first.get();
    EXPECT_EQ(second.status, 0) << second.output;
    EXPECT_NE(second.output.find("1 case(s) of 'k' in"), std::string::npos) << second.output;
    EXPECT_EQ(failed.status, 1) << failed.output;
    EXPECT_NE(failed.output.find("the 1 case(s) it recorded are removed"), std::string::npos) << failed.output;
    // The earlier case and the second run's are there, nothing else (no run's folder left behind).
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(shared)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"k-0000", "k-0001"}));
    EXPECT_EQ(list_test_cases(shared, "k").size(), 2u);
    EXPECT_EQ(test::run_gi_tool("cases " + quoted(shared)).status, 0);
}

// Class 7: a run that succeeds moves its cases in after those already there, up to --limit.
TEST_F(RecordCases, Class7_ASucceedingRecordingNumbersItsCasesAfterThoseThereUpToTheLimit) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool record lists the kernel's variables with NVRTC";
    const fs::path out = dir_ / "out";
    write_test_case(launch_of_k(), out);
    const fs::path twice = program(dir_ / "twice.sh", "sh " + quoted(dir_ / "once.sh"));
    program(dir_ / "once.sh", "exit 0");
    test::ToolRun r = test::run_gi_tool(record(out, twice));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("2 case(s) of 'k'"), std::string::npos) << r.output;
    EXPECT_EQ(list_test_cases(out, "k").size(), 3u);
    r = test::run_gi_tool("record " + quoted(kernel_) + " --function k --limit 4 --out " + quoted(out) + " -- " + quoted(twice));
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_NE(r.output.find("1 case(s) of 'k'"), std::string::npos) << r.output;  // the program's second is over the limit
    EXPECT_EQ(list_test_cases(out, "k").size(), 4u) << r.output;
}

// Class 21 (F5): record and accept started the program through env(1), which took a path holding
// '=' for a variable assignment and ran the program's first argument instead.
TEST_F(RecordCases, Class21_AProgramWhosePathHoldsAnEqualsSignRuns) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool record lists the kernel's variables with NVRTC";
    const fs::path prog = program(dir_ / "dir=1" / "prog.sh", "exit 0");
    const test::ToolRun recorded = test::run_gi_tool(record(dir_ / "out", prog) + " 0 0");
    EXPECT_EQ(recorded.status, 0) << recorded.output;
    EXPECT_EQ(list_test_cases(dir_ / "out", "k").size(), 1u);
    const test::ToolRun accepted =
        test::run_gi_tool("accept " + quoted(kernel_) + " --function k --reference " + quoted(dir_ / "template") +
                          " --out " + quoted(dir_ / "accepted") + " -- " + quoted(prog) + " 0 0");
    EXPECT_EQ(accepted.status, 0) << accepted.output;
    EXPECT_NE(accepted.output.find("gi-tool accept: accepted"), std::string::npos) << accepted.output;
}

// Class 17 (C3, C4): a blob that is a device or a pipe was reported as missing.
TEST_F(RecordCases, Class17_ABlobThatIsADeviceOrAPipeIsNamedSo) {
    const fs::path blob = template_ / "buffer0.before.bin";
    fs::remove(blob);
    ASSERT_EQ(::mkfifo(blob.c_str(), 0600), 0);
    test::ToolRun r = test::run_gi_tool("cases " + quoted(dir_ / "template"));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("buffer0.before.bin: test-case data named in"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("is not a regular file (a device or a pipe?)"), std::string::npos) << r.output;
    fs::remove(blob);
    if (::mknod(blob.c_str(), S_IFCHR | 0600, makedev(1, 5)) != 0) return;  // not root: the pipe stands for it
    r = test::run_gi_tool("cases " + quoted(dir_ / "template"));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("is not a regular file (a device or a pipe?)"), std::string::npos) << r.output;
}

// Class 17 (C3, C5): a blob that is a link, to a device or to a file outside the case folder with
// the right size and checksum, was read (or called missing): the name check was bypassed.
TEST_F(RecordCases, Class17_ABlobThatIsASymbolicLinkIsRefused) {
    const fs::path blob = template_ / "buffer0.before.bin";
    const fs::path outside = dir_ / "outside.bin";
    fs::copy_file(blob, outside);
    fs::remove(blob);
    fs::create_symlink(outside, blob);
    test::ToolRun r = test::run_gi_tool("cases " + quoted(dir_ / "template"));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("buffer0.before.bin: test-case data named in"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("is a symbolic link"), std::string::npos) << r.output;
    fs::remove(blob);
    fs::create_symlink("/dev/zero", blob);
    r = test::run_gi_tool("cases " + quoted(dir_ / "template"));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("is a symbolic link"), std::string::npos) << r.output;
}

// Class 17 (C10): a pointer argument far past the end of an empty buffer was verified, and the
// worker would have passed base + 1 TB to the kernel.
TEST_F(RecordCases, Class17_APointerIntoAnEmptyBufferTakesOffsetZeroOnly) {
    TestCase tc = launch_of_k();
    tc.buffers[0].size = 0;
    tc.buffers[0].before = tc.buffers[0].after = {};
    tc.args[0].offset = 999999999999;
    const fs::path far = dir_ / "far";
    write_test_case(tc, far);
    const test::ToolRun r = test::run_gi_tool("cases " + quoted(far));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find("pointer offset 999999999999 lies outside its buffer of 0 bytes (an empty buffer takes "
                            "offset 0 only)"),
              std::string::npos)
        << r.output;
    tc.args[0].offset = 0;
    write_test_case(tc, dir_ / "start");
    EXPECT_EQ(test::run_gi_tool("cases " + quoted(dir_ / "start")).status, 0);
}

// Class 17 (C17): a folder k-0000 holding a launch of another kernel was taken as a case of k.
TEST_F(RecordCases, Class17_AFolderNamedForOneKernelHoldingAnothersCaseIsRefused) {
    const fs::path cases = dir_ / "renamed";
    fs::rename(write_test_case(launch_of_k("other"), cases), cases / "k-0000");
    for (const std::string& selection : {std::string(" --recorded-name k"), std::string()}) {
        const test::ToolRun r = test::run_gi_tool("cases " + quoted(cases) + selection);
        EXPECT_EQ(r.status, 1) << selection << ": " << r.output;
        EXPECT_NE(r.output.find("k-0000: the folder is named for kernel 'k' but its manifest.xml records a launch of "
                                "'other'"),
                  std::string::npos)
            << r.output;
    }
}

// Class 20 (D12): a UTF-8 byte order mark before the first '#define' hid it ("the file has no
// '#define SCALE'"). It is no part of the line, and the variant keeps it.
TEST_F(RecordCases, Class20_AByteOrderMarkBeforeTheFirstDefineIsNoPartOfIt) {
    const std::string bom = "\xEF\xBB\xBF";
    std::ofstream(kernel_) << bom << "#define SCALE 2\n__global__ void k(float* v) { v[0] = v[0] * SCALE; }\n";
    const fs::path variant = dir_ / "v.cu";
    const test::ToolRun r = test::run_gi_tool("apply " + quoted(kernel_) + " --function k --param SCALE=2,3 --genome "
                                              "SCALE=3 -o " + quoted(variant));
    ASSERT_EQ(r.status, 0) << r.output;
    // The mark stays the file's first bytes, before the variant's comment line: a compiler takes it
    // nowhere else ("stray '#'" when it started line 2).
    EXPECT_EQ(test::file_text(variant).rfind(bom + "// gi-optimize variant: SCALE=3\n#define SCALE 3\n", 0), 0u)
        << test::file_text(variant);
    if (!test::have_nvcc()) return;
    const ProcessResult compiled =
        run_process({find_nvcc(), "-arch=sm_90", "-cubin", "-o", (dir_ / "v.cubin").string(), variant.string()});
    EXPECT_TRUE(compiled.succeeded()) << compiled.err;
}

// Class 20 (D14): a second '#define' of a parameter silently undid the gene (the variant said
// SCALE=3 and compiled SCALE=2).
TEST_F(RecordCases, Class20_AParameterDefinedTwiceOutsideAnyIfIsRefusedNamingBothLines) {
    std::ofstream(kernel_) << "#define SCALE 2\n#define SCALE 2\n__global__ void k(float* v) { v[0] = v[0] * SCALE; }\n";
    const fs::path variant = dir_ / "v.cu";
    const test::ToolRun r = test::run_gi_tool("apply " + quoted(kernel_) + " --function k --param SCALE=2,3 --genome "
                                              "SCALE=3 -o " + quoted(variant));
    EXPECT_EQ(r.status, 1) << r.output;
    EXPECT_NE(r.output.find(":2: parameter SCALE is #defined twice outside any #if (lines 1 and 2)"), std::string::npos)
        << r.output;
    EXPECT_FALSE(fs::exists(variant));
}

}  // namespace
}  // namespace gi::record_cases_test
