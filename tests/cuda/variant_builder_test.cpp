// The cuda evaluator's builder (cuda/variant_builder.hpp) alone, no GPU: which compiler a kernel
// file gets, and what a variant's builds and their counters are. Compiles are real (NVRTC, nvcc).
#include "cuda/variant_builder.hpp"

#include <gtest/gtest.h>

#include <future>

#include "../support/toolkit.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const char* kDeviceOnly = R"(
__global__ void scale(float* out, const float* in, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) out[i] = 2.0f * in[i];
}
)";

const char* kWithHostCode = R"(#include <vector>
__global__ void scale(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
int main() { std::vector<float> v(4); return static_cast<int>(v.size()) - 4; }
)";

class VariantBuilderTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC in this build";
        options_.function = "scale";
        options_.guard_fast_compile = "0";  // most tests here are about paired builds; the fast path has its own
    }
    VariantBuilder builder(const std::string& original) { return VariantBuilder(options_, "sm_90", original, "scale", {}, "."); }
    CudaEvaluatorOptions options_;
};

// An option NVRTC has no equivalent of sends every compile to nvcc, and says so, naming it.
TEST_F(VariantBuilderTest, AnOptionNvrtcLacksIsNamedWhenNvccTakesOver) {
    options_.compile_options = {"-DX=1", "-res-usage"};
    VariantBuilder b = builder(kDeviceOnly);
    testing::internal::CaptureStderr();
    const DeviceCompileResult original = b.prepare();
    const std::string said = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(original.ok) << original.log;
    EXPECT_EQ(b.stats().compiler, "nvcc");
    EXPECT_EQ(b.nvrtc_refusal(), "NVRTC has no equivalent of the compile option '-res-usage'");
    EXPECT_NE(said.find("NVRTC has no equivalent of the compile option '-res-usage'; compiling variants with nvcc"),
              std::string::npos) << said;
}

// With gi-tool's --nvrtc-server processes (gi-tool's default) a variant's builds are the same bytes
// as in process, and the compiles ran there.
TEST_F(VariantBuilderTest, NvrtcProcessesBuildTheSameModules) {
    VariantBuilder here = builder(kDeviceOnly);
    options_.nvrtc_server = GI_TOOL_PATH;
    VariantBuilder there = builder(kDeviceOnly);
    EXPECT_EQ(there.prepare().cubin, here.prepare().cubin);
    Variant v;
    v.source = std::string(kDeviceOnly) + "// a variant\n";
    const VariantBuild a = here.collect(here.submit(v, "")), b = there.collect(there.submit(v, ""));
    ASSERT_TRUE(b.code.ok) << b.code.log;
    EXPECT_TRUE(b.paired);
    EXPECT_EQ(b.code.cubin, a.code.cubin);
    EXPECT_GE(there.stats().nvrtc_processes.started, 1);
    EXPECT_EQ(here.stats().nvrtc_processes.started, 0);
    EXPECT_EQ(there.stats().nvrtc_processes.lost, 0);
}

TEST_F(VariantBuilderTest, ADeviceOnlyFileIsCompiledByNvrtcAndItsVariantsPaired) {
    VariantBuilder b = builder(kDeviceOnly);
    const DeviceCompileResult original = b.prepare();
    EXPECT_TRUE(original.ok);
    EXPECT_EQ(b.stats().compiler, "nvrtc");
    EXPECT_FALSE(b.device_side());
    EXPECT_TRUE(b.nvrtc_refusal().empty());
    Variant v;
    v.source = std::string(kDeviceOnly) + "// a variant\n";
    // A loop: its guarded copy goes in the same module.
    EXPECT_FALSE(b.paired_source_of(v.source).empty());
    const VariantBuild built = b.collect(b.submit(v, ""));
    EXPECT_TRUE(built.code.ok);
    EXPECT_TRUE(built.paired);
    EXPECT_EQ(b.stats().paired_builds, 1);
    EXPECT_EQ(b.stats().cache_hits, 0);
    const long compiled = b.stats().compiled;
    // The same variant again: from the compiled-code cache.
    const VariantBuild again = b.collect(b.submit(v, ""));
    EXPECT_EQ(again.code.cubin, built.code.cubin);
    EXPECT_EQ(b.stats().compiled, compiled);
    EXPECT_EQ(b.stats().cache_hits, 1);
}

TEST_F(VariantBuilderTest, AFileWithHostCodeIsCompiledByItsDeviceSide) {
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc here";
    VariantBuilder b = builder(kWithHostCode);
    EXPECT_TRUE(b.prepare().ok);
    EXPECT_TRUE(b.device_side());
    EXPECT_EQ(b.stats().compiler, "nvrtc (device side)");
}

TEST_F(VariantBuilderTest, AVariantThatDoesNotCompileIsAFailedBuildNotAThrow) {
    VariantBuilder b = builder(kDeviceOnly);
    b.prepare();
    Variant v;
    v.source = std::string(kDeviceOnly) + "\n__global__ void broken() { undefined_name = 1; }\n";
    const VariantBuild built = b.collect(b.submit(v, ""));
    EXPECT_FALSE(built.code.ok);
    EXPECT_FALSE(built.guarded.has_value());
    EXPECT_NE(built.code.log.find("undefined_name"), std::string::npos) << built.code.log;
    // A paired compile that failed is counted as such, and the plain compile gave the verdict.
    EXPECT_EQ(b.stats().paired_fallbacks, 1);
}

TEST_F(VariantBuilderTest, AnOriginalThatDoesNotCompileIsAnErrorNamingTheArchitecture) {
    VariantBuilder b = builder("__global__ void scale(float* out) { out[0] = missing; }\n");
    try {
        b.prepare();
        FAIL() << "a broken original was prepared";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("does not compile for sm_90"), std::string::npos) << e.what();
    }
}

// By default a variant's guarded build compiles with -Ofc=mid, apart from its plain build (which
// is timed and shipped, so it keeps every optimisation): fewer bytes of code for NVRTC to unroll and
// schedule. Turning it off goes back to optimised guarded builds, paired with the plain ones.
TEST_F(VariantBuilderTest, GuardedBuildsCompileFastAndApartByDefault) {
    options_.guard_fast_compile = "mid";
    VariantBuilder b = builder(kDeviceOnly);
    ASSERT_TRUE(b.prepare().ok);
    EXPECT_TRUE(b.fast_guard_builds());
    EXPECT_EQ(b.stats().guard_options, "-Ofc=mid");
    Variant v;
    v.source = std::string(kDeviceOnly) + "// a variant\n";
    EXPECT_TRUE(b.paired_source_of(v.source).empty());
    const VariantBuild built = b.collect(b.submit(v, ""));
    ASSERT_TRUE(built.code.ok) << built.code.log;
    ASSERT_TRUE(built.guarded && built.guarded->ok);
    EXPECT_FALSE(built.paired);
    EXPECT_NE(built.guarded->cubin.find("gi_loop_clock"), std::string::npos);
    EXPECT_EQ(built.code.cubin.find("gi_loop_clock"), std::string::npos);
    EXPECT_EQ(b.stats().guard_compiled, 1);
    // The same guarded source optimised is another module: the option reached the compiler.
    options_.guard_fast_compile = "0";
    options_.paired_guard_build = false;
    VariantBuilder optimised = builder(kDeviceOnly);
    ASSERT_TRUE(optimised.prepare().ok);
    EXPECT_FALSE(optimised.fast_guard_builds());
    const VariantBuild slow = optimised.collect(optimised.submit(v, ""));
    ASSERT_TRUE(slow.guarded && slow.guarded->ok);
    EXPECT_NE(slow.guarded->cubin, built.guarded->cubin);
    EXPECT_EQ(slow.code.cubin, built.code.cubin);

    options_.paired_guard_build = true;
    testing::internal::CaptureStderr();
    b.use_optimised_guard_builds("a test's reason");
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_NE(said.find("a test's reason; variants' guarded builds are optimised"), std::string::npos) << said;
    EXPECT_FALSE(b.fast_guard_builds());
    EXPECT_EQ(b.stats().guard_options, "");
    EXPECT_FALSE(b.paired_source_of(v.source).empty());
}

// Builds started ahead (evolve's guess at its next generation, while the gate runs) are the ones
// submit() hands out for the same variant: no second compile. A guess never asked for is counted.
TEST_F(VariantBuilderTest, BuildsStartedAheadAreHandedOutOnce) {
    VariantBuilder b = builder(kDeviceOnly);
    ASSERT_TRUE(b.prepare().ok);
    Variant v, other;
    v.source = std::string(kDeviceOnly) + "// guessed\n";
    v.key = "guessed";
    other.source = std::string(kDeviceOnly) + "// guessed, never asked for\n";
    other.key = "unused";
    b.submit_ahead(v, "");
    b.submit_ahead(other, "");
    b.submit_ahead(v, "");  // once per key
    const long compiled_before = b.stats().compiled;
    const VariantBuild built = b.collect(b.submit(v, ""));
    ASSERT_TRUE(built.code.ok) << built.code.log;
    EXPECT_EQ(b.stats().built_ahead, 1);
    EXPECT_EQ(b.stats().compiled, compiled_before + 1);  // the paired build, compiled once, ahead
    EXPECT_EQ(b.stats().cache_hits, 0);
    b.forget_ahead();
    EXPECT_EQ(b.stats().ahead_unused, 1);
    // Asked for again, a variant is compiled afresh (or found in the cache), not handed out twice.
    b.collect(b.submit(v, ""));
    EXPECT_EQ(b.stats().built_ahead, 1);
}

// evaluate() keeps its GPU turn while the next variant's build is ready (cuda_evaluator.cpp):
// ready() says whether collect() would wait, as collect() waits.
TEST(VariantBuilderReady, SaysWhetherCollectWouldWait) {
    DeviceCompileResult compiled;
    compiled.ok = true;
    {
        std::promise<DeviceCompileResult> plain, guarded;
        VariantBuilder::Pending pending;
        pending.plain = plain.get_future().share();
        pending.guarded = guarded.get_future().share();
        EXPECT_FALSE(VariantBuilder::ready(pending));
        plain.set_value(compiled);
        EXPECT_FALSE(VariantBuilder::ready(pending)) << "the guarded build of a plain one that compiled is waited for";
        guarded.set_value(compiled);
        EXPECT_TRUE(VariantBuilder::ready(pending));
    }
    {
        std::promise<DeviceCompileResult> plain, guarded;
        VariantBuilder::Pending pending;
        pending.plain = plain.get_future().share();
        pending.guarded = guarded.get_future().share();
        plain.set_value(DeviceCompileResult{});  // did not compile
        EXPECT_TRUE(VariantBuilder::ready(pending)) << "a failed plain build's guarded job is not waited for";
    }
    {
        std::promise<VariantBuild> paired;
        VariantBuilder::Pending pending;
        pending.paired = paired.get_future().share();
        EXPECT_FALSE(VariantBuilder::ready(pending));
        paired.set_value(VariantBuild{});
        EXPECT_TRUE(VariantBuilder::ready(pending));
    }
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// A template kernel defined in a header (KERNEL reduction_kernel.cuh): no host code in the file
// instantiates it, so nvcc's build of the whole file (held-out validation) held no kernel at all
// and every case failed as a compile error (found on the GPU with tests/programs/reduction). The
// recorded cases' instantiations are instantiated by name.
TEST(VariantBuilderHeader, TheWholeFileBuildHoldsTheCasesInstantiations) {
    if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC in this build";
    const std::string header = "template <int N>\n"
                               "__global__ void scale(float* a) { a[threadIdx.x] *= N; }\n";
    CudaEvaluatorOptions options;
    options.function = "scale";
    options.guard_fast_compile = "0";
    VariantBuilder builder(options, "sm_90", header, "scale", {"scale<2>", "scale<4>"}, ".");
    ASSERT_TRUE(builder.prepare().ok);
    const VariantBuild whole = builder.build(header, "", {}, true);
    ASSERT_TRUE(whole.code.ok) << whole.code.log;
    EXPECT_NE(whole.code.cubin.find("_Z5scaleILi2EEvPf"), std::string::npos);
    EXPECT_NE(whole.code.cubin.find("_Z5scaleILi4EEvPf"), std::string::npos);
}

}  // namespace
}  // namespace gi
