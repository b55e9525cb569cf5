#include "compile/nvrtc_compiler.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "compile/nvrtc_cache.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const char* kNvrtcCompilerKernel = R"(
#define BLOCK 64
__global__ void scale(float* out, const float* in, int n, float k) {
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) out[i] = k * in[i];
}
)";

TEST(NvrtcOptions, TranslatesNvccSpellings) {
    auto o = nvrtc_options_for({"-use_fast_math", "-maxrregcount=32", "-Xptxas -dlcm=ca", "-DX=1", "-ftz=true"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o, (std::vector<std::string>{"--use_fast_math", "--maxrregcount=32", "--ptxas-options=-dlcm=ca", "-DX=1",
                                            "--ftz=true"}));
    o = nvrtc_options_for({"-Xptxas", "-v"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o, (std::vector<std::string>{"--ptxas-options=-v"}));
    o = nvrtc_options_for({"--diag-error=940", "-diag-error=177"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o, (std::vector<std::string>{"--diag-error=940", "--diag-error=177"}));
    // The consumer example's -diag-suppress=177 sent every compile to nvcc (issue 19).
    o = nvrtc_options_for({"-diag-suppress=177", "--diag_suppress=550", "-diag-warn", "20012", "--diag-suppress", "177,550"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o, (std::vector<std::string>{"--diag-suppress=177", "--diag-suppress=550", "--diag-warn=20012",
                                            "--diag-suppress=177,550"}));
    EXPECT_FALSE(nvrtc_options_for({"-diag-suppress"}));  // its value is missing
    // The guarded builds' fast compile (cuda/variant_builder.hpp), in nvcc's spellings.
    o = nvrtc_options_for({"-Ofc=mid", "--Ofast-compile=max", "-Ofast-compile=0"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o, (std::vector<std::string>{"--Ofast-compile=mid", "--Ofast-compile=max", "--Ofast-compile=0"}));
    // What a target's build passes: host compiler options have no effect on device code.
    o = nvrtc_options_for({"-Xcompiler -O3", "-Xcompiler", "-fPIC", "-Xcompiler=-Wall", "-O3", "-g", "--expt-relaxed-constexpr",
                           "--extended-lambda", "--std=c++17", "-G", "--generate-line-info"});
    ASSERT_TRUE(o);
    EXPECT_EQ(*o, (std::vector<std::string>{"-std=c++17", "-G", "-lineinfo"}));
    // Separable compilation: NVRTC compiles relocatable code, linked alone after (compile/device_link.hpp).
    EXPECT_EQ(*nvrtc_options_for({"-rdc=true", "--relocatable-device-code=false"}),
              (std::vector<std::string>{"--relocatable-device-code=true", "--relocatable-device-code=false"}));
    EXPECT_FALSE(nvrtc_options_for({"-Xcompiler"}));
    EXPECT_FALSE(nvrtc_options_for({"-Xptxas"}));
}

TEST(NvrtcCompiler, CompilesToACubin) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    DeviceCompileRequest r;
    r.source = kNvrtcCompilerKernel;
    r.arch = "sm_90";
    r.options = {"-use_fast_math"};
    const DeviceCompileResult out = compile_with_nvrtc(r);
    ASSERT_TRUE(out.ok) << out.log;
    ASSERT_GT(out.cubin.size(), 4u);
    EXPECT_EQ(out.cubin.substr(0, 4), "\x7f" "ELF");
    EXPECT_EQ(out.compiler, "nvrtc");
}

TEST(NvrtcCompiler, TakesNvccsDiagnosticOptions) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    DeviceCompileRequest r;
    r.source = "__global__ void k() { int unused; }\n";
    const DeviceCompileResult warned = compile_with_nvrtc(r);
    ASSERT_TRUE(warned.ok) << warned.log;
    EXPECT_NE(warned.log.find("#177"), std::string::npos) << warned.log;
    r.options = {"-diag-suppress=177"};
    const DeviceCompileResult quiet = compile_with_nvrtc(r);
    ASSERT_TRUE(quiet.ok) << quiet.log;
    EXPECT_EQ(quiet.log.find("#177"), std::string::npos) << quiet.log;
    r.options = {"-diag-error=177"};
    EXPECT_FALSE(compile_with_nvrtc(r).ok);
}

TEST(NvrtcCompiler, CompileErrorIsAResultWithTheLine) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    DeviceCompileRequest r;
    r.source = "__global__ void k(int* p) {\n  p[0] = undeclared;\n}\n";
    r.name = "broken.cu";
    const DeviceCompileResult out = compile_with_nvrtc(r);
    EXPECT_FALSE(out.ok);
    EXPECT_NE(out.log.find("broken.cu(2)"), std::string::npos) << out.log;
}

TEST(NvrtcCompiler, UnsupportedOptionsAreAnError) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    DeviceCompileRequest r;
    r.source = kNvrtcCompilerKernel;
    r.options = {"-res-usage"};  // an nvcc report NVRTC has no equivalent of
    EXPECT_THROW(compile_with_nvrtc(r), Error);
}

TEST(CompiledCodeCache, KeysSeparateEveryInput) {
    const std::string base = compiled_code_key("src", {"-a"}, "sm_90", "nvrtc");
    EXPECT_EQ(base, compiled_code_key("src", {"-a"}, "sm_90", "nvrtc"));
    EXPECT_NE(base, compiled_code_key("src ", {"-a"}, "sm_90", "nvrtc"));
    EXPECT_NE(base, compiled_code_key("src", {"-b"}, "sm_90", "nvrtc"));
    EXPECT_NE(base, compiled_code_key("src", {"-a"}, "sm_80", "nvrtc"));
    EXPECT_NE(base, compiled_code_key("src", {"-a"}, "sm_90", "nvcc"));
    EXPECT_NE(compiled_code_key("ab", {}, "x", "y"), compiled_code_key("a", {"b"}, "x", "y"));
}

TEST(CompiledCodeCache, MemoryAndFolder) {
    const auto folder = std::filesystem::temp_directory_path() / ("gi-cubin-cache-" + std::to_string(::getpid()));
    std::filesystem::remove_all(folder);
    DeviceCompileResult r;
    r.ok = true;
    r.cubin = "\x7f" "ELF....";
    r.compiler = "nvrtc";
    r.ms = 12;
    {
        CompiledCodeCache cache(folder);
        EXPECT_FALSE(cache.get("k1"));
        cache.put("k1", r);
        DeviceCompileResult failed;
        failed.log = "error";
        cache.put("k2", failed);
        auto hit = cache.get("k1");
        ASSERT_TRUE(hit);
        EXPECT_TRUE(hit->cached);
        EXPECT_EQ(hit->ms, 0);
        EXPECT_EQ(cache.hits(), 1u);
        EXPECT_EQ(cache.misses(), 1u);
        ASSERT_TRUE(cache.get("k2"));  // failures are remembered in memory
    }
    CompiledCodeCache reopened(folder);
    auto hit = reopened.get("k1");
    ASSERT_TRUE(hit);
    EXPECT_EQ(hit->cubin, r.cubin);
    EXPECT_FALSE(reopened.get("k2"));  // but not on disk
    std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace gi
