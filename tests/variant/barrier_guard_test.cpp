#include "variant/barrier_guard.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"

namespace gi {
namespace {

long lines(const std::string& text) { return std::count(text.begin(), text.end(), '\n'); }

// guard_barriers(source) replaces `barriers` calls and gives `expected`, with the same lines (so
// compiler messages keep the kernel's line numbers).
void expect_guarded(const std::string& source, int barriers, const std::string& expected) {
    const BarrierGuardResult r = guard_barriers(source);
    EXPECT_EQ(r.barriers, barriers) << source;
    EXPECT_EQ(r.source, expected);
    EXPECT_EQ(lines(r.source), lines(source)) << "compiler messages must keep the kernel's line numbers";
}

TEST(BarrierGuard, BarriersAreReplacedAndEveryWayOutOfAKernelCounts) {
    const std::string source =
        "__global__ void k(int* p, int n) {\n"
        "    if (threadIdx.x >= n) return;\n"
        "    p[threadIdx.x] = 1;\n"
        "    __syncthreads();\n"
        "}\n";
    expect_guarded(source, 1,
                   "__global__ void k(int* p, int n) { gi_barrier_enter();\n"
                   "    if (threadIdx.x >= n) return gi_thread_exit();\n"
                   "    p[threadIdx.x] = 1;\n"
                   "    gi_guarded_syncthreads(1);\n"
                   "gi_thread_exit(); }\n");
}

TEST(BarrierGuard, BarriersInDeviceFunctionsAreGuardedAndOnlyKernelsCountExits) {
    expect_guarded(
        "__device__ void step(int* s) { s[0] = 1; __syncthreads(); return; }\n"
        "__global__ void k(int* p) { __shared__ int s[1]; step(s); p[0] = s[0]; }\n",
        1,
        "__device__ void step(int* s) { s[0] = 1; gi_guarded_syncthreads(1); return; }\n"
        "__global__ void k(int* p) { gi_barrier_enter(); __shared__ int s[1]; step(s); p[0] = s[0]; gi_thread_exit(); }\n");
}

TEST(BarrierGuard, EachBarrierSiteHasItsOwnNumber) {
    // A warp split between two sites is what hangs the hardware barrier, so copies of one barrier
    // line are told apart.
    expect_guarded("__global__ void k(int* p) {\n  if (p[0]) __syncthreads ( );\n  __syncthreads();\n}\n", 2,
                   "__global__ void k(int* p) { gi_barrier_enter();\n  if (p[0]) gi_guarded_syncthreads(1);\n"
                   "  gi_guarded_syncthreads(2);\ngi_thread_exit(); }\n");
}

TEST(BarrierGuard, WithoutPlainBarriersTheTextIsUnchanged) {
    for (const std::string source : {
             std::string("__global__ void k(int* p) { if (p) return; p[0] = 1; }\n"),
             // Not plain barriers: these stay hardware ones.
             std::string("__global__ void k(int* p) { p[0] = __syncthreads_count(p[1]); __syncwarp(); }\n"),
             std::string("#define SYNC __syncthreads()\n__global__ void k(int* p) { SYNC; }\n"),
             // Comments and strings are not code.
             std::string("__global__ void k(int* p) { /* __syncthreads(); */ p[0] = 1; } // __syncthreads();\n"),
             // Text that cannot be scanned is the plain compile's to report.
             std::string("__global__ void k(int* p) { __syncthreads(); /* unterminated\n"),
             std::string("__global__ void k(int* p) { __syncthreads(); \n"),
             // No kernel here to set the barrier's counters up (it is in another file).
             std::string("__device__ void step(int* s) { s[0] = 1; __syncthreads(); }\n"),
         }) {
        expect_guarded(source, 0, source);
    }
}

TEST(BarrierGuard, ReturnsOfValuesAndReturnsOutsideKernelsAreLeftAlone) {
    expect_guarded(
        "__device__ int f(int x) { __syncthreads(); return x; }\n"
        "template <int N> __global__ void k(int* p) { p[0] = f(N); if (p[1]) { return; } }\n",
        1,
        "__device__ int f(int x) { gi_guarded_syncthreads(1); return x; }\n"
        "template <int N> __global__ void k(int* p) { gi_barrier_enter(); p[0] = f(N); if (p[1]) { return gi_thread_exit(); } "
        "gi_thread_exit(); }\n");
}

TEST(HangGuard, GuardsBarriersThenLoopsBehindOnePreamble) {
    const std::string source =
        "__global__ void k(int* p, int n) {\n"
        "    for (int i = 0; i < n; ++i) { p[i] = i; __syncthreads(); }\n"
        "}\n";
    const LoopGuardResult r = guard_hangs(source);
    EXPECT_EQ(r.guarded, 1);
    EXPECT_EQ(r.barriers, 1);
    EXPECT_TRUE(r.any());
    const std::string& preamble = loop_guard_preamble();
    ASSERT_EQ(r.source.compare(0, preamble.size(), preamble), 0);
    EXPECT_EQ(r.source.substr(preamble.size()),
              "__global__ void k(int* p, int n) { gi_barrier_enter();\n"
              "    for (int i = 0; (i < n) && gi_loop_ok(); ++i) { p[i] = i; gi_guarded_syncthreads(1); }\n"
              "gi_thread_exit(); }\n");
    // The preamble's own barrier loop is not guarded (it has a deadline of its own).
    EXPECT_NE(preamble.find("void gi_guarded_syncthreads(unsigned int site)"), std::string::npos);
    EXPECT_FALSE(guard_hangs("__global__ void k(int* p) { p[0] = 1; }\n").any());
    // Barriers off: guard_loops's result, barriers left as they are.
    const LoopGuardResult loops_only = guard_hangs(source, "variant.cu", HangGuards{false, true});
    EXPECT_EQ(loops_only.barriers, 0);
    EXPECT_EQ(loops_only.source, guard_loops(source).source);
}

}  // namespace
}  // namespace gi
