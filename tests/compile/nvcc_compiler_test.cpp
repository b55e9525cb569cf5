#include <gtest/gtest.h>

#include <fstream>

#include "../support/toolkit.hpp"
#include "compile/nvcc_compiler.hpp"
#include "util/error.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

void write(const std::filesystem::path& path, const std::string& text, bool executable = false) {
    std::ofstream(path) << text;
    if (executable)
        std::filesystem::permissions(path, std::filesystem::perms::owner_all, std::filesystem::perm_options::add);
}

TEST(NvccArch, AcceptsRealArchitecturesOnly) {
    EXPECT_NO_THROW(check_nvcc_arch("sm_90"));
    EXPECT_NO_THROW(check_nvcc_arch("sm_90a"));
    EXPECT_NO_THROW(check_nvcc_arch("sm_100"));
    EXPECT_THROW(check_nvcc_arch("compute_90"), UsageError);
    EXPECT_THROW(check_nvcc_arch("90"), UsageError);
    EXPECT_THROW(check_nvcc_arch("sm90"), UsageError);
    EXPECT_THROW(check_nvcc_arch(""), UsageError);
}

TEST(FirstErrorLines, PicksErrorLinesAndHidesTheScratchPath) {
    const std::string log =
        "/tmp/gi-x/variant3.cu(12): error: identifier \"j\" is undefined\n"
        "      j = 1;\n"
        "      ^\n\n"
        "/tmp/gi-x/variant3.cu(14): warning #177-D: variable \"q\" was declared but never referenced\n"
        "/tmp/gi-x/variant3.cu(20): error: expected a \";\"\n"
        "ptxas error   : Entry function 'k' uses too much shared data\n"
        "3 errors detected in the compilation of \"/tmp/gi-x/variant3.cu\".\n";
    EXPECT_EQ(first_error_lines(log, 2, "/tmp/gi-x/variant3.cu", "variant.cu"),
              "variant.cu(12): error: identifier \"j\" is undefined\nvariant.cu(20): error: expected a \";\"");
    EXPECT_EQ(first_error_lines(log, 3, "", ""),
              "/tmp/gi-x/variant3.cu(12): error: identifier \"j\" is undefined\n"
              "/tmp/gi-x/variant3.cu(20): error: expected a \";\"\n"
              "ptxas error   : Entry function 'k' uses too much shared data");
    EXPECT_EQ(first_error_lines("\nsomething odd\nhappened\n", 1), "something odd");
    EXPECT_EQ(first_error_lines("", 3), "");
}

TEST(NvccCompiler, CommandHasArchOutputKindIncludesFlagsAndVariantOptions) {
    NvccOptions options;
    options.nvcc = "/opt/nvcc";
    options.arch = "sm_80";
    options.include_dirs = {"/k"};
    options.flags = {"-std=c++17"};
    const NvccCompiler cubin(options);
    EXPECT_EQ(cubin.command("/s/v.cu", "/s/v.cubin", {"-use_fast_math"}),
              (std::vector<std::string>{"/opt/nvcc", "-arch=sm_80", "-cubin", "-I/k", "-std=c++17", "-use_fast_math",
                                        "-o", "/s/v.cubin", "/s/v.cu"}));
    // A kernel defined in a header is compiled as CUDA, whatever its extension.
    const std::vector<std::string> header = cubin.command("/s/k.cuh", "/s/k.cubin", {});
    EXPECT_EQ(std::vector<std::string>(header.end() - 3, header.end()),
              (std::vector<std::string>{"-x", "cu", "/s/k.cuh"}));
    options.object = true;
    EXPECT_EQ(NvccCompiler(options).command("v.cu", "v.o", {})[2], "-c");
    options.arch = "compute_80";
    EXPECT_THROW(NvccCompiler{options}, UsageError);
}

TEST(NvccCompiler, MissingCompilerProgramIsAnError) {
    NvccOptions options;
    options.nvcc = "/nonexistent/nvcc";
    const NvccCompiler compiler(options);
    TemporaryDirectory dir("gi-test");
    write(dir.path() / "a.cu", "__global__ void k() {}\n");
    EXPECT_THROW(compiler.compile(dir.path() / "a.cu", dir.path() / "a.cubin", {}, "a.cu"), Error);
}

TEST(NvccCompiler, HangingCompilerTimesOut) {
    TemporaryDirectory dir("gi-test");
    write(dir.path() / "fake-nvcc", "#!/bin/sh\nsleep 30\n", true);
    write(dir.path() / "a.cu", "__global__ void k() {}\n");
    NvccOptions options;
    options.nvcc = (dir.path() / "fake-nvcc").string();
    options.timeout = std::chrono::milliseconds(300);
    const CompileOutcome outcome = NvccCompiler(options).compile(dir.path() / "a.cu", dir.path() / "a.cubin", {}, "a.cu");
    EXPECT_EQ(outcome.status, CompileOutcome::Status::TimedOut);
    EXPECT_NE(outcome.first_errors.find("killed"), std::string::npos);
    EXPECT_LT(outcome.seconds, 5);
}

TEST(NvccCompiler, CompilerKilledBySignalIsAFailure) {
    TemporaryDirectory dir("gi-test");
    write(dir.path() / "fake-nvcc", "#!/bin/sh\nkill -SEGV $$\n", true);
    write(dir.path() / "a.cu", "\n");
    NvccOptions options;
    options.nvcc = (dir.path() / "fake-nvcc").string();
    const CompileOutcome outcome = NvccCompiler(options).compile(dir.path() / "a.cu", dir.path() / "a.cubin", {}, "a.cu");
    EXPECT_EQ(outcome.status, CompileOutcome::Status::Failed);
    EXPECT_NE(outcome.first_errors.find("signal"), std::string::npos) << outcome.first_errors;
}

TEST(NvccCompiler, CompilesAGoodKernelAndReportsABadOne) {
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc: install the CUDA toolkit to run this test";
    TemporaryDirectory dir("gi-test");
    write(dir.path() / "good.cu", "__global__ void k(float* o) { o[threadIdx.x] = 1.0f; }\n");
    write(dir.path() / "bad.cu", "__global__ void k(float* o) {\n  o[threadIdx.x] = undefined_name;\n}\n");
    const NvccCompiler compiler(NvccOptions{});
    const CompileOutcome good = compiler.compile(dir.path() / "good.cu", dir.path() / "good.cubin", {}, "good.cu");
    EXPECT_EQ(good.status, CompileOutcome::Status::Ok) << good.log;
    EXPECT_TRUE(std::filesystem::exists(dir.path() / "good.cubin"));
    const CompileOutcome bad = compiler.compile(dir.path() / "bad.cu", dir.path() / "bad.cubin", {}, "variant.cu");
    EXPECT_EQ(bad.status, CompileOutcome::Status::Failed);
    EXPECT_EQ(bad.first_errors.rfind("variant.cu(2): error", 0), 0u) << bad.first_errors;
    EXPECT_NE(bad.first_errors.find("undefined_name"), std::string::npos) << bad.first_errors;
    EXPECT_EQ(bad.log.find(dir.path().string()), std::string::npos) << "scratch path hidden: " << bad.log;
}

// nvcc alone refuses "k.cuh" ("Don't know what to do with 'k.cuh'"), so a kernel that lives in a
// header (KERNEL reduction_kernel.cuh) could not have its variables listed or its entries verified.
TEST(NvccCompiler, CompilesAKernelDefinedInAHeader) {
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc: install the CUDA toolkit to run this test";
    TemporaryDirectory dir("gi-test");
    for (const std::string name : {"k.cuh", "k.h", "k.hpp"}) {
        write(dir.path() / name, "template <int N> __global__ void k(float* o) { o[threadIdx.x] = N; }\n"
                                 "template __global__ void k<2>(float*);\n");
        const CompileOutcome outcome =
            NvccCompiler(NvccOptions{}).compile(dir.path() / name, dir.path() / (name + ".cubin"), {}, name);
        EXPECT_EQ(outcome.status, CompileOutcome::Status::Ok) << name << ": " << outcome.log;
    }
}

}  // namespace
}  // namespace gi
