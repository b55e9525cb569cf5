// The shared-memory guard's rewriting (pure), and that what it writes compiles with NVRTC for the
// forms kernels declare and use shared arrays in (no GPU needed). That a guarded access outside
// its array ends the check run without a fault is tests/worker/gpu_worker_test.cpp's.
#include "variant/shared_guard.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compile/nvrtc_compiler.hpp"
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"

namespace gi {
namespace {

long lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

TEST(SharedGuard, ChecksEveryFullSubscriptOfASharedTile) {
    const std::string source =
        "__global__ void k(float* dst, const float* src) {\n"
        "    __shared__ float tile[4][144];\n"
        "    tile[threadIdx.y][threadIdx.x] = src[threadIdx.x];\n"
        "    __syncthreads();\n"
        "    for (int k = -8; k <= 8; k++) dst[threadIdx.x] += tile[threadIdx.y][threadIdx.x + 8 + k];\n"
        "}\n";
    const SharedGuardResult r = guard_shared_arrays(source);
    EXPECT_EQ(r.accesses, 2);
    EXPECT_EQ(r.arrays, std::vector<std::string>{"tile"});
    EXPECT_NE(r.source.find("__shared__ float tile[4][144];"), std::string::npos) << "the declaration is left alone";
    EXPECT_NE(r.source.find("gi_shared_ix(tile, (threadIdx.y), (threadIdx.x)) = src[threadIdx.x];"), std::string::npos)
        << r.source;
    EXPECT_NE(r.source.find("+= gi_shared_ix(tile, (threadIdx.y), (threadIdx.x + 8 + k));"), std::string::npos) << r.source;
    EXPECT_EQ(lines(r.source), lines(source));
}

TEST(SharedGuard, ExternArraysAreCheckedAgainstTheLaunchsDynamicSharedMemory) {
    const SharedGuardResult r = guard_shared_arrays(
        "extern __shared__ float scratch[];\n__global__ void k(int n) { scratch[threadIdx.x] = n; }\n");
    EXPECT_EQ(r.accesses, 1);
    EXPECT_NE(r.source.find("gi_shared_ix(scratch, (threadIdx.x)) = n;"), std::string::npos) << r.source;
}

TEST(SharedGuard, LeavesAddressesRowsMembersAndOtherNamesAlone) {
    const std::string source =
        "struct S { float tile[4][8]; };\n"
        "__global__ void k(float* out, S s, int m) {\n"
        "    __shared__ float tile[4][8];\n"
        "    float* row = tile[1];\n"          // a row used as a pointer
        "    float* end = &tile[3][8];\n"      // an address, one past the end is lawful
        "    out[0] = s.tile[0][0];\n"         // a member of the same name
        "    out[1] = row[0] + (m & tile[0][1]);\n"  // binary &: an access
        "}\n";
    const SharedGuardResult r = guard_shared_arrays(source);
    EXPECT_EQ(r.accesses, 1) << r.source;
    EXPECT_NE(r.source.find("float* row = tile[1];"), std::string::npos);
    EXPECT_NE(r.source.find("float* end = &tile[3][8];"), std::string::npos);
    EXPECT_NE(r.source.find("s.tile[0][0]"), std::string::npos);
    EXPECT_NE(r.source.find("(m & gi_shared_ix(tile, (0), (1)))"), std::string::npos) << r.source;
}

TEST(SharedGuard, NestedAccessesAndSeveralDeclaratorsInOneStatement) {
    const SharedGuardResult r = guard_shared_arrays(
        "__global__ void k(float* out) {\n"
        "    __shared__ int index[32], other[2][2];\n"
        "    __shared__ __align__(16) float values[32];\n"
        "    out[0] = values[index[threadIdx.x]] + other[1][index[0]];\n"
        "}\n");
    EXPECT_EQ(r.arrays, (std::vector<std::string>{"index", "other", "values"}));
    EXPECT_EQ(r.accesses, 4);
    EXPECT_NE(r.source.find("out[0] = gi_shared_ix(values, (gi_shared_ix(index, (threadIdx.x)))) + "
                            "gi_shared_ix(other, (1), (gi_shared_ix(index, (0))));"),
              std::string::npos)
        << r.source;
}

TEST(SharedGuard, ANameDeclaredWithTwoRanksIsLeftAlone) {
    const SharedGuardResult r = guard_shared_arrays(
        "__global__ void a(float* o) { __shared__ float s[8]; s[0] = 1; o[0] = s[0]; }\n"
        "__global__ void b(float* o) { __shared__ float s[2][4]; s[0][0] = 1; o[0] = s[0][0]; }\n");
    EXPECT_EQ(r.accesses, 0);
    EXPECT_EQ(r.source.find("gi_shared"), std::string::npos);
}

TEST(SharedGuard, TextThatCannotBeScannedComesBackUnchanged) {
    const std::string broken = "__global__ void k() { __shared__ float t[4]; t[0] = 1; /* never closed\n";
    EXPECT_EQ(guard_shared_arrays(broken).source, broken);
    const std::string unbalanced = "__global__ void k() { __shared__ float t[4]; t[0 = 1; }\n";
    EXPECT_EQ(guard_shared_arrays(unbalanced).source, unbalanced);
    EXPECT_EQ(guard_shared_arrays("__global__ void k(float* p) { p[0] = 1; }\n").accesses, 0);
}

TEST(SharedGuard, IsPartOfTheGuardedBuildUnlessTurnedOff) {
    const std::string source = "__global__ void k(float* o) { __shared__ float t[4]; t[threadIdx.x] = 1; o[0] = t[0]; }\n";
    const LoopGuardResult on = guard_hangs(source);
    EXPECT_EQ(on.shared_accesses, 2);
    EXPECT_TRUE(on.any()) << "a kernel with no loop or barrier still gets a guarded build for its shared accesses";
    const LoopGuardResult off = guard_hangs(source, "variant.cu", HangGuards{true, false});
    EXPECT_EQ(off.shared_accesses, 0);
    EXPECT_FALSE(off.any());
}

// What gi_shared_ix must compile for: templates, volatile tiles, structs, dynamic
// shared memory, and the name shadowed by a pointer and by a local array in another function.
TEST(SharedGuard, GuardedAccessesCompileWithNvrtcInTheFormsKernelsUse) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const std::string source =
        "struct Pair { float a, b; };\n"
        "extern __shared__ float dyn[];\n"
        "template <typename T, int N>\n"
        "__global__ void reduce(T* out, const T* in) {\n"
        "    __shared__ T part[N];\n"
        "    volatile __shared__ int flags[N];\n"
        "    __shared__ Pair pairs[N][2];\n"
        "    part[threadIdx.x] = in[threadIdx.x];\n"
        "    flags[threadIdx.x] = 1;\n"
        "    pairs[threadIdx.x][1].a = part[threadIdx.x];\n"
        "    dyn[threadIdx.x] = pairs[threadIdx.x][1].a + flags[0];\n"
        "    __syncthreads();\n"
        "    for (int s = N / 2; s > 0; s >>= 1) {\n"
        "        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (threadIdx.x == 0) out[blockIdx.x] = part[0] + dyn[1];\n"
        "}\n"
        "__device__ float first(const float* part) { return part[0]; }\n"
        "__global__ void shadowed(float* out) { float part[4] = {1, 2, 3, 4}; out[0] = part[threadIdx.x & 3] + first(out); }\n"
        "template __global__ void reduce<float, 128>(float*, const float*);\n"
        "template __global__ void reduce<double, 64>(double*, const double*);\n";
    const LoopGuardResult guarded = guard_hangs(source);
    EXPECT_GE(guarded.shared_accesses, 9);
    DeviceCompileRequest request;
    request.source = guarded.source;
    request.name = "forms.cu";
    request.arch = "sm_90";
    const DeviceCompileResult out = compile_with_nvrtc(request);
    EXPECT_TRUE(out.ok) << out.log << "\n" << guarded.source;
}

}  // namespace
}  // namespace gi
