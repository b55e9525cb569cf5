// NVRTC's compiles in `gi-tool --nvrtc-server` processes (cuda/nvrtc_processes.hpp): the same
// results as in process, a crashing compiler judged a compile error, a refusal passed on, and no
// process to be had meaning a compile in this one.
#include "cuda/nvrtc_processes.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <sys/stat.h>

#include "util/error.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

const char* kNvrtcKernel = R"(
__global__ void scale(float* out, const float* in, int n, float k) {
    int i = blockIdx.x * 64 + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}
)";

DeviceCompileRequest request(const std::string& source) {
    DeviceCompileRequest r;
    r.source = source;
    r.options = {"-DUNUSED=1"};
    return r;
}

TEST(NvrtcProcesses, CompileAsInProcessOnSeveralThreadsAtOnce) {
    if (!nvrtc_available()) GTEST_SKIP() << "this build has no NVRTC";
    NvrtcProcesses processes(GI_TOOL_PATH, std::chrono::seconds(120));
    const DeviceCompileResult in_process = compile_with_nvrtc(request(kNvrtcKernel));
    ASSERT_TRUE(in_process.ok) << in_process.log;
    std::vector<std::future<DeviceCompileResult>> compiles;
    for (int k = 0; k < 3; ++k) compiles.push_back(std::async(std::launch::async, [&] { return processes.compile(request(kNvrtcKernel)); }));
    for (auto& f : compiles) {
        const DeviceCompileResult r = f.get();
        ASSERT_TRUE(r.ok) << r.log;
        EXPECT_EQ(r.cubin, in_process.cubin);
        EXPECT_EQ(r.compiler, "nvrtc");
    }
    EXPECT_EQ(processes.stats().started, 3);  // one each, at once
    EXPECT_EQ(processes.compile(request(kNvrtcKernel)).cubin, in_process.cubin);
    EXPECT_EQ(processes.stats().started, 3);  // kept and reused
    // A compile error is a result, with NVRTC's messages.
    const DeviceCompileResult broken = processes.compile(request("__global__ void k() { undeclared = 1; }"));
    EXPECT_FALSE(broken.ok);
    EXPECT_NE(broken.log.find("undeclared"), std::string::npos) << broken.log;
    // Options NVRTC refuses go back to the caller (which compiles with nvcc), as in process.
    DeviceCompileRequest refused = request(kNvrtcKernel);
    refused.options = {"--no-such-option"};
    EXPECT_THROW(processes.compile(refused), Error);
    EXPECT_EQ(processes.stats().lost, 0);
}

TEST(NvrtcProcesses, AProcessThatDiesJudgesItsVariantAndTheNextGetsAnother) {
    TemporaryDirectory dir("gi-nvrtc-processes");
    const std::string dies = (dir.path() / "dies").string();
    std::ofstream(dies) << "#!/bin/sh\necho 'nvrtc: internal error' >&2\nexit 3\n";
    ::chmod(dies.c_str(), 0755);
    NvrtcProcesses processes(dies, std::chrono::seconds(20));
    const DeviceCompileResult r = processes.compile(request(kNvrtcKernel));
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("NVRTC's process failed on this variant"), std::string::npos) << r.log;
    EXPECT_NE(r.log.find("nvrtc: internal error"), std::string::npos) << r.log;
    processes.compile(request(kNvrtcKernel));
    EXPECT_EQ(processes.stats().started, 2);
    EXPECT_EQ(processes.stats().lost, 2);
}

TEST(NvrtcProcesses, WithoutAProcessTheCompileRunsHere) {
    if (!nvrtc_available()) GTEST_SKIP() << "this build has no NVRTC";
    NvrtcProcesses processes("/nonexistent/gi-tool", std::chrono::seconds(20));
    const DeviceCompileResult r = processes.compile(request(kNvrtcKernel));
    EXPECT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.cubin, compile_with_nvrtc(request(kNvrtcKernel)).cubin);
    EXPECT_EQ(processes.stats().started, 0);
}

TEST(NvrtcProcesses, OnlyGiToolServesThem) {
    EXPECT_EQ(nvrtc_server_program(), "");  // this is the test program
}

}  // namespace
}  // namespace gi
