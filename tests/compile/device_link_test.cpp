// Separable compilation (issue 40, item 1): a kernel file compiled with -rdc=true is relocatable
// device code the driver cannot load; gi-tool links it alone first. No GPU: the link is checked by
// the image it gives (an executable ELF, the file's variables and kernel still in it).
#include "compile/device_link.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "../support/toolkit.hpp"
#include "compile/module_variables.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/variant_builder.hpp"
#include "process/process.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// A sample-style file: cooperative groups, libcu++, a __constant__ table, a helper in the file.
const char* kSeparable = R"(#include <cooperative_groups.h>
#include <cuda/std/limits>
namespace cg = cooperative_groups;
__constant__ float c_weights[17];
__device__ float weighted(float x, int i) { return x * c_weights[i % 17]; }
__global__ void convolve(float* a, int n) {
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? weighted(a[i], i) : 0.0f;
    block.sync();
    if (i < n) a[i] = v + cuda::std::numeric_limits<float>::epsilon();
}
)";

// Calls a helper another file of the program defines: cannot be linked alone.
const char* kCallsAnotherFile = R"(extern __device__ float other_file_helper(float);
__global__ void convolve(float* a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = other_file_helper(a[i]);
}
)";

std::string relocatable_test_cubin(const std::string& source, const std::vector<std::string>& options) {
    TemporaryDirectory dir("gi-device-link-test");
    std::ofstream(dir.path() / "k.cu") << source;
    NvccOptions no;
    no.arch = "sm_90";
    const CompileOutcome outcome = NvccCompiler(no).compile(dir.path() / "k.cu", dir.path() / "k.cubin", options, "k.cu");
    if (outcome.status != CompileOutcome::Status::Ok) return "";
    std::ifstream in(dir.path() / "k.cubin", std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

bool linked_has_variable(const std::string& cubin, const std::string& name) {
    for (const ModuleVariable& v : module_variables(cubin))
        if (v.name == name) return true;
    return false;
}

TEST(DeviceLink, NvccsRelocatableCubinIsLinkedAloneIntoALoadableOne) {
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc";
    const std::string relocatable = relocatable_test_cubin(kSeparable, {"-rdc=true"});
    ASSERT_FALSE(relocatable.empty());
    EXPECT_TRUE(is_relocatable_cubin(relocatable));
    EXPECT_FALSE(is_relocatable_cubin(relocatable_test_cubin(kSeparable, {})));
    const DeviceLinkResult linked = link_device_code(relocatable, "sm_90");
    ASSERT_TRUE(linked.ok) << linked.log;
    EXPECT_FALSE(is_relocatable_cubin(linked.cubin));
    EXPECT_TRUE(linked_has_variable(linked.cubin, "c_weights"));
    EXPECT_NE(linked.cubin.find("convolve"), std::string::npos);
    // A cubin that needs no link is handed on as it is.
    const std::string plain = relocatable_test_cubin(kSeparable, {});
    EXPECT_EQ(loadable_device_code(plain, "sm_90").cubin, plain);
}

TEST(DeviceLink, NvrtcCompilesSeparableCodeThatLinksAlone) {
    if (!nvrtc_available()) GTEST_SKIP() << "no NVRTC in this build";
    const auto options = nvrtc_options_for({"-rdc=true"});
    ASSERT_TRUE(options);
    EXPECT_EQ(*options, std::vector<std::string>{"--relocatable-device-code=true"});
    DeviceCompileRequest request;
    request.source = kSeparable;
    request.options = {"-rdc=true"};
    request.include_dirs = toolkit_include_dirs();
    const DeviceCompileResult compiled = compile_with_nvrtc(request);
    ASSERT_TRUE(compiled.ok) << compiled.log;
    EXPECT_TRUE(is_relocatable_cubin(compiled.cubin));
    const DeviceLinkResult linked = loadable_device_code(compiled.cubin, "sm_90");
    ASSERT_TRUE(linked.ok) << linked.log;
    EXPECT_FALSE(is_relocatable_cubin(linked.cubin));
}

TEST(DeviceLink, AFileThatCallsIntoAnotherFileSaysWhichSymbol) {
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc";
    const std::string relocatable = relocatable_test_cubin(kCallsAnotherFile, {"-rdc=true"});
    ASSERT_FALSE(relocatable.empty());
    const DeviceLinkResult linked = link_device_code(relocatable, "sm_90");
    EXPECT_FALSE(linked.ok);
    EXPECT_TRUE(linked.cubin.empty());
    EXPECT_NE(linked.log.find("_Z17other_file_helperf"), std::string::npos) << linked.log;
    EXPECT_NE(linked.log.find("another file of the program defines"), std::string::npos) << linked.log;
}

// What the evaluator builds for a target with CUDA_SEPARABLE_COMPILATION: the original and its
// variants with -rdc=true, each loadable, by NVRTC and by nvcc alike.
TEST(DeviceLink, TheBuilderHandsOnlyLoadableModulesOnForSeparableTargets) {
    if (!nvrtc_available() || !test::have_nvcc()) GTEST_SKIP() << "needs NVRTC and nvcc";
    for (const bool nvcc_only : {false, true}) {
        CudaEvaluatorOptions options;
        options.function = "convolve";
        options.compile_options = {"-rdc=true"};
        options.nvcc_only = nvcc_only;
        options.guard_fast_compile = "0";
        VariantBuilder builder(options, "sm_90", kSeparable, "convolve", {}, ".");
        const DeviceCompileResult original = builder.prepare();
        ASSERT_TRUE(original.ok) << original.log;
        EXPECT_EQ(builder.stats().compiler, nvcc_only ? "nvcc" : "nvrtc");
        EXPECT_FALSE(is_relocatable_cubin(original.cubin)) << "nvcc_only " << nvcc_only;
        Variant v;
        v.source = std::string(kSeparable) + "// a variant\n";
        const VariantBuild build = builder.collect(builder.submit(v, ""));
        ASSERT_TRUE(build.code.ok) << build.code.log;
        EXPECT_FALSE(is_relocatable_cubin(build.code.cubin));
        if (build.guarded) EXPECT_FALSE(is_relocatable_cubin(build.guarded->cubin));
    }
    // A file that needs another file's device code is a clear compile failure of the original.
    CudaEvaluatorOptions options;
    options.function = "convolve";
    options.compile_options = {"-rdc=true"};
    VariantBuilder builder(options, "sm_90", kCallsAnotherFile, "convolve", {}, ".");
    try {
        builder.prepare();
        ADD_FAILURE() << "the original was prepared";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("another file of the program defines (_Z17other_file_helperf)"),
                  std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

// Relocatable device code types its variables STT_CUDA_OBJECT, not STT_OBJECT: gi-tool record
// listed none of a separable target's variables, so its __constant__ data went uncaptured and the
// oracle gate refused every case (found on the GPU with tests/programs/convolutionSeparable).
TEST(DeviceLink, TheVariablesOfRelocatableCodeAreListed) {
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc";
    const std::string relocatable = relocatable_test_cubin(kSeparable, {"-rdc=true"});
    ASSERT_TRUE(is_relocatable_cubin(relocatable));
    EXPECT_TRUE(linked_has_variable(relocatable, "c_weights"));
    EXPECT_TRUE(linked_has_variable(link_device_code(relocatable, "sm_90").cubin, "c_weights"));
}

}  // namespace
}  // namespace gi
