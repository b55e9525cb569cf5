// The loop guard on the project's own kernels, without a GPU: each registered kernel file with a
// loop (kernels/*/registration.txt, test::kernels_with_loops) guarded with its default parameters
// must still compile with NVRTC for sm_90, as the cuda evaluator compiles it, with the guard's
// symbols in the cubin; and nvcc's PTX of it must read %globaltimer inside the kernel itself, not
// only in gi_loop_clock (for hydro with its Manifest genes on: by default its only loops sit in
// #if regions that are off).
#include <gtest/gtest.h>

#include <filesystem>

#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "util/error.hpp"
#include "process/process.hpp"
#include "registered_kernels.hpp"
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

using test::KernelFile;
using test::entry_ptx;
using test::kernels_with_loops;
using test::options_with_live_loops;
using test::read_all;
using test::registered_kernels;

TEST(LoopGuardKernels, EveryRegisteredKernelIsFound) {
    const std::vector<KernelFile> kernels = registered_kernels();
    EXPECT_GE(kernels.size(), 3u);  // stereo, bspline, hydro
    for (const KernelFile& k : kernels) EXPECT_TRUE(fs::exists(k.path)) << k.path;
    // The guard's tests below still cover the examples and the corpus's kernels with loops.
    EXPECT_GE(kernels_with_loops().size(), 5u);  // stereo, bspline, hydro, lu_update, wavefront
}

TEST(LoopGuardKernels, HangGuardedKernelsCompileWithNvrtcForSm90) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    for (const KernelFile& k : kernels_with_loops()) {
        SCOPED_TRACE(k.path.string());
        // As the evaluator builds it: barriers guarded too.
        const std::string text = read_all(k.path);
        const LoopGuardResult guarded = guard_hangs(text, k.path.filename().string());
        EXPECT_GT(guarded.guarded, 0);
        EXPECT_EQ(guarded.barriers > 0, text.find("__syncthreads()") != std::string::npos);
        EXPECT_TRUE(guarded.unguarded.empty()) << guarded.unguarded.front();
        DeviceCompileRequest request;
        request.source = guarded.source;
        request.name = k.path.filename().string();
        request.arch = "sm_90";
        request.include_dirs = {k.path.parent_path().string()};
        for (const std::vector<std::string>& options : {std::vector<std::string>{}, options_with_live_loops(k)}) {
            request.options = options;
            const DeviceCompileResult out = compile_with_nvrtc(request);
            ASSERT_TRUE(out.ok) << out.log;
            for (const char* symbol : {kLoopClockKernel, kLoopDeadlineSymbol, kLoopOverrunSymbol})
                EXPECT_NE(out.cubin.find(symbol), std::string::npos) << symbol << " is not in the cubin";
        }
    }
}

TEST(LoopGuardKernels, CompilerMessagesKeepTheKernelsLineNumbers) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    DeviceCompileRequest request;
    request.source = guard_loops("__global__ void k(int* p) {\n  for (int i = 0; i < 4; i++)\n    p[i] = undeclared;\n}\n").source;
    request.name = "broken.cu";
    const DeviceCompileResult out = compile_with_nvrtc(request);
    EXPECT_FALSE(out.ok);
    EXPECT_NE(out.log.find("broken.cu(3)"), std::string::npos) << out.log;
}

TEST(LoopGuardKernels, GuardedPtxReadsTheGlobalTimerInTheKernel) {
    std::string nvcc;
    try {
        nvcc = find_nvcc();
    } catch (const Error& e) {
        GTEST_SKIP() << e.what();
    }
    TemporaryDirectory dir("gi-loop-guard-ptx");
    for (const KernelFile& k : kernels_with_loops()) {
        SCOPED_TRACE(k.path.string());
        const std::string text =
            kernel_ptx(nvcc, k, guard_loops(read_all(k.path), k.path.filename().string()).source, dir.path());
        const std::string kernel = entry_ptx(text, k.function);
        ASSERT_FALSE(kernel.empty()) << "no .entry for " << k.function;
        EXPECT_NE(kernel.find("%globaltimer"), std::string::npos) << "the guarded " << k.function << " never reads the clock";
        EXPECT_NE(kernel.find(kLoopDeadlineSymbol), std::string::npos);
        EXPECT_NE(kernel.find(kLoopOverrunSymbol), std::string::npos);
        EXPECT_NE(entry_ptx(text, kLoopClockKernel).find("%globaltimer"), std::string::npos);
    }
}

}  // namespace
}  // namespace gi
