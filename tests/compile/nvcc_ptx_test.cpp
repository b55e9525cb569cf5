// A variant's PTX from nvcc's own front end (compile/nvcc_ptx.hpp), the PTX PTX edits index: a
// file's quoted #includes resolve from its own folder, as in the build; a template kernel named by
// a name expression is instantiated; a compile error is a result; cicc's 32-bit shared addresses.
#include "compile/nvcc_ptx.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "../support/toolkit.hpp"

namespace gi {
namespace {

class NvccPtx : public ::testing::Test {
protected:
    void SetUp() override {
        if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc here";
        dir_ = test::fresh_temp_dir("gi-nvcc-ptx-test");
        std::filesystem::create_directories(dir_ / "src");
        std::ofstream(dir_ / "src" / "tile.cuh") << "#define TILE 128\n";
    }
    std::filesystem::path dir_;
};

const char* kTiled = R"(#include "tile.cuh"
__global__ void sum(float* out, const float* in) {
    __shared__ float tile[TILE];
    tile[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % TILE];
}
)";

TEST_F(NvccPtx, AFileIsCompiledWhereItIsSoItsIncludesResolve) {
    const std::filesystem::path file = dir_ / "src" / "k.cu";
    std::ofstream(file) << kTiled;
    DeviceCompileRequest request;
    request.source = kTiled;
    request.name = file.string();
    request.arch = "sm_90";
    const DeviceCompileResult r = compile_ptx_with_nvcc(request);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_EQ(r.compiler, "nvcc");
    EXPECT_NE(r.ptx.find(".target sm_90"), std::string::npos);
    EXPECT_NE(r.ptx.find("_Z3sumPfPKf"), std::string::npos);
    EXPECT_NE(r.ptx.find(".shared .align 4 .b8 _ZZ3sumPfPKfE4tile[512]"), std::string::npos) << "TILE from tile.cuh";
    EXPECT_NE(r.ptx.find("st.shared.f32 \t[%r"), std::string::npos) << "cicc's 32-bit shared addresses";

    // A variant of it (another text than the file holds) is compiled from a copy, the file's
    // folder still searched for its includes.
    request.source = std::string(kTiled) + "// a variant\n";
    const DeviceCompileResult copy = compile_ptx_with_nvcc(request);
    EXPECT_TRUE(copy.ok) << copy.log;
}

TEST_F(NvccPtx, ANameExpressionInstantiatesATemplateKernel) {
    DeviceCompileRequest request;
    request.source = "template <int N> __global__ void fill(float* out) { out[threadIdx.x] = N; }\n";
    request.arch = "sm_90";
    EXPECT_EQ(compile_ptx_with_nvcc(request).ptx.find(".entry"), std::string::npos) << "nothing instantiated it";
    request.name_expressions = {"fill<3>"};
    const DeviceCompileResult r = compile_ptx_with_nvcc(request);
    ASSERT_TRUE(r.ok) << r.log;
    EXPECT_NE(r.ptx.find(".entry _Z4fillILi3EEvPf"), std::string::npos) << r.ptx;
}

TEST_F(NvccPtx, ACompileErrorIsAResultWithNvccsMessages) {
    DeviceCompileRequest request;
    request.source = "__global__ void broken(float* out) { out[0] = undeclared; }\n";
    request.name = "broken.cu";
    request.arch = "sm_90";
    const DeviceCompileResult r = compile_ptx_with_nvcc(request);
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.log.find("undeclared"), std::string::npos) << r.log;
    EXPECT_THROW(compile_ptx_with_nvcc(request, "/no/such/nvcc"), Error);
    request.arch = "gfx90a";
    EXPECT_THROW(compile_ptx_with_nvcc(request), Error);
}

}  // namespace
}  // namespace gi
