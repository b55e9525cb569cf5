// The loop guard on the project's own kernels, without a GPU: each registered kernel file
// (kernels/*/registration.txt) guarded with its default parameters must still compile with NVRTC
// for sm_90, as the cuda evaluator compiles it, with the guard's symbols in the cubin; and nvcc's
// PTX of it must read %globaltimer inside the kernel itself, not only in gi_loop_clock (for hydro
// with its Manifest genes on: by default its only loops sit in #if regions that are off).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "util/error.hpp"
#include "util/process.hpp"
#include "variant/loop_guard.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

struct KernelFile {
    fs::path path;
    std::string function;
};

// Every registered kernel: its file and function, from the registration files.
std::vector<KernelFile> registered_kernels() {
    std::vector<KernelFile> out;
    for (const auto& entry : fs::directory_iterator(fs::path(GI_SOURCE_DIR) / "kernels")) {
        const fs::path registration = entry.path() / "registration.txt";
        if (!fs::exists(registration)) continue;
        std::ifstream in(registration);
        std::string line, kernel, function;
        while (std::getline(in, line)) {
            std::istringstream words(line);
            std::string key, value;
            words >> key >> value;
            if (key == "kernel") kernel = value;
            if (key == "function") function = value;
        }
        if (!kernel.empty()) out.push_back({entry.path() / kernel, function});
    }
    return out;
}

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The PTX of one .entry (up to the next one).
std::string entry_ptx(const std::string& ptx, const std::string& function) {
    for (std::size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
        const std::size_t end = ptx.find(".entry ", at + 1);
        const std::string body = ptx.substr(at, end == std::string::npos ? std::string::npos : end - at);
        const std::string head = body.substr(0, body.find('('));
        if (head.find(function) != std::string::npos) return body;
    }
    return "";
}

// Parameters under which the kernel's loops are compiled (none needed for most).
std::vector<std::string> options_with_live_loops(const KernelFile& k) {
    if (k.path.filename() == "hydro.cu") return {"-DMANIFEST_INTERP=1", "-DMANIFEST_FLUX=1"};
    return {};
}

TEST(LoopGuardKernels, EveryRegisteredKernelIsFound) {
    const std::vector<KernelFile> kernels = registered_kernels();
    EXPECT_GE(kernels.size(), 3u);  // stereo, bspline, hydro
    for (const KernelFile& k : kernels) EXPECT_TRUE(fs::exists(k.path)) << k.path;
}

TEST(LoopGuardKernels, GuardedKernelsCompileWithNvrtcForSm90) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    for (const KernelFile& k : registered_kernels()) {
        SCOPED_TRACE(k.path.string());
        const LoopGuardResult guarded = guard_loops(read_all(k.path), k.path.filename().string());
        EXPECT_GT(guarded.guarded, 0);
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
    for (const KernelFile& k : registered_kernels()) {
        SCOPED_TRACE(k.path.string());
        const fs::path source = dir.path() / k.path.filename();
        const fs::path ptx = dir.path() / (k.path.stem().string() + ".ptx");
        std::ofstream(source, std::ios::binary) << guard_loops(read_all(k.path), k.path.filename().string()).source;
        std::vector<std::string> argv{nvcc, "-ptx", "-arch=sm_90", "-I", k.path.parent_path().string()};
        for (const std::string& option : options_with_live_loops(k)) argv.push_back(option);
        argv.insert(argv.end(), {source.string(), "-o", ptx.string()});
        const ProcessResult r = run_process(argv);
        ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
        const std::string text = read_all(ptx);
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
