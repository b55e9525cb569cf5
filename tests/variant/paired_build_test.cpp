// The paired build (variant/paired_build.hpp) without a GPU: its text; which files are refused up
// front; and on each registered kernel with a loop (test::kernels_with_loops) that NVRTC compiles
// it for sm_90 into one cubin with the plain kernel, its gi_guarded:: copy and the guard once, and
// that nvcc's PTX of it reads %globaltimer in the guarded kernel only (the plain one, which is
// timed, is untouched).
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "registered_kernels.hpp"
#include "util/error.hpp"
#include "process/process.hpp"
#include "variant/paired_build.hpp"

namespace gi {
namespace {
using test::KernelFile;

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

// Itanium mangling of a free function in the global namespace, and of its gi_guarded:: copy.
std::string plain_mangled(const std::string& f) { return "_Z" + std::to_string(f.size()) + f; }
std::string guarded_mangled(const std::string& f) { return "_ZN10gi_guarded" + std::to_string(f.size()) + f + "E"; }

const char* kLoopKernel = "#define N 4\n__global__ void k(int* p) {\n  for (int i = 0; i < N; i++) p[i] = i;\n}";

TEST(PairedBuild, TextIsPreamblePlainThenGuardedInItsNamespace) {
    const LoopGuardResult r = paired_source(kLoopKernel);
    EXPECT_EQ(r.guarded, 1);
    const std::string& preamble = loop_guard_preamble();
    ASSERT_EQ(r.source.rfind(preamble, 0), 0u);
    const std::string rest = r.source.substr(preamble.size());
    // The plain source unchanged, then the guarded copy numbered from line 1 again.
    ASSERT_EQ(rest.rfind(kLoopKernel, 0), 0u) << rest;
    const std::string guarded_body = guard_loops(kLoopKernel).source.substr(preamble.size());
    EXPECT_NE(rest.find("\nnamespace gi_guarded {\n#line 1\n" + guarded_body + "\n}"), std::string::npos) << rest;
    EXPECT_EQ(count(r.source, "gi_loop_ok()"), 2u);  // its definition and the one guarded loop
    EXPECT_EQ(count(r.source, "__constant__ unsigned long long gi_loop_deadline_ns;"), 1u);
}

TEST(PairedBuild, RefusesExternCAndMangledNames) {
    EXPECT_EQ(paired_build_refusal(kLoopKernel, "k"), "");
    EXPECT_NE(paired_build_refusal("extern \"C\" __global__ void k(int* p) {}", "k").find("extern \"C\""), std::string::npos);
    EXPECT_NE(paired_build_refusal("extern  \"C\" {\n__global__ void k(int* p) {}\n}", "k"), "");
    EXPECT_NE(paired_build_refusal(kLoopKernel, "_Z1kPi").find("mangled"), std::string::npos);
    // Only real linkage specifications count.
    EXPECT_EQ(paired_build_refusal("// extern \"C\" was here\n__global__ void k(int* p) {}", "k"), "");
    EXPECT_EQ(paired_build_refusal("__device__ const char* s = \"extern \\\"C\\\"\";\n", "k"), "");
    EXPECT_EQ(paired_build_refusal("extern __device__ int x;\n", "k"), "");
}

TEST(PairedBuild, CompilerMessagesKeepTheKernelsLineNumbers) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    DeviceCompileRequest request;
    request.source = paired_source("__global__ void k(int* p) {\n  for (int i = 0; i < 4; i++)\n    p[i] = undeclared;\n}\n").source;
    request.name = "broken.cu";
    const DeviceCompileResult out = compile_with_nvrtc(request);
    EXPECT_FALSE(out.ok);
    EXPECT_EQ(count(out.log, "broken.cu(3)"), 2u) << out.log;  // the plain copy's error and the guarded copy's
}

TEST(PairedBuild, RegisteredKernelsCompileIntoOneCubinWithBothKernels) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const std::vector<KernelFile> kernels = test::kernels_with_loops();
    ASSERT_GE(kernels.size(), 3u);
    for (const KernelFile& k : kernels) {
        SCOPED_TRACE(k.path.string());
        const std::string source = test::read_all(k.path);
        EXPECT_EQ(paired_build_refusal(source, k.function), "");
        DeviceCompileRequest request;
        request.source = paired_source(source, k.path.filename().string()).source;
        request.name = k.path.filename().string();
        request.arch = "sm_90";
        request.include_dirs = {k.path.parent_path().string()};
        for (const std::vector<std::string>& options : {std::vector<std::string>{}, test::options_with_live_loops(k)}) {
            request.options = options;
            const DeviceCompileResult out = compile_with_nvrtc(request);
            ASSERT_TRUE(out.ok) << out.log;
            EXPECT_NE(out.cubin.find(plain_mangled(k.function)), std::string::npos) << "no plain " << k.function;
            EXPECT_NE(out.cubin.find(guarded_mangled(k.function)), std::string::npos) << "no gi_guarded::" << k.function;
            for (const char* symbol : {kLoopClockKernel, kLoopDeadlineSymbol, kLoopOverrunSymbol})
                EXPECT_NE(out.cubin.find(symbol), std::string::npos) << symbol << " is not in the cubin";
        }
    }
}

TEST(PairedBuild, OnlyTheGuardedKernelReadsTheGlobalTimer) {
    std::string nvcc;
    try {
        nvcc = find_nvcc();
    } catch (const Error& e) {
        GTEST_SKIP() << e.what();
    }
    TemporaryDirectory dir("gi-paired-ptx");
    for (const KernelFile& k : test::kernels_with_loops()) {
        SCOPED_TRACE(k.path.string());
        const std::string text = test::kernel_ptx(
            nvcc, k, paired_source(test::read_all(k.path), k.path.filename().string()).source, dir.path());
        const std::string plain = test::entry_ptx(text, plain_mangled(k.function) + "P");
        const std::string guarded = test::entry_ptx(text, guarded_mangled(k.function));
        ASSERT_FALSE(plain.empty()) << "no .entry for " << k.function;
        ASSERT_FALSE(guarded.empty()) << "no .entry for gi_guarded::" << k.function;
        EXPECT_EQ(plain.find("%globaltimer"), std::string::npos) << "the plain (timed) " << k.function << " reads the clock";
        EXPECT_NE(guarded.find("%globaltimer"), std::string::npos) << "the guarded " << k.function << " never reads the clock";
        EXPECT_NE(guarded.find(kLoopDeadlineSymbol), std::string::npos);
        // One guard for both: one clock kernel, one deadline, one overrun flag.
        EXPECT_EQ(count(text, ".entry " + std::string(kLoopClockKernel)), 1u);
        EXPECT_EQ(count(text, ".u64 " + std::string(kLoopDeadlineSymbol) + ";"), 1u) << "the deadline is declared more than once";
        EXPECT_EQ(count(text, ".u32 " + std::string(kLoopOverrunSymbol) + ";"), 1u);
    }
}

}  // namespace
}  // namespace gi
