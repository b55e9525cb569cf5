// PTX -> cubin by ptxas alone (issue 46): NVRTC's PTX for a kernel, edited, assembles; broken PTX
// is a compile error naming the line; the nvcc options that reach ptxas.
#include "compile/ptx_compiler.hpp"

#include <gtest/gtest.h>

#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_module.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

const char* kPtxCompilerKernel = R"(
__global__ void scale(float* out, const float* in, int n, float k) {
    int i = blockIdx.x * 64 + threadIdx.x;
    if (i < n) out[i] = k * in[i] + 1.0f;
}
)";

bool have_ptxas() {
    try {
        find_ptxas();
        return true;
    } catch (const Error&) {
        return false;
    }
}

TEST(PtxCompiler, OptionsThatReachPtxas) {
    EXPECT_EQ(ptxas_options_for({"-use_fast_math", "-Xptxas -dlcm=ca", "-maxrregcount=32", "-DX=1", "-Xptxas", "-v",
                                 "--ptxas-options=-O2"}),
              (std::vector<std::string>{"-dlcm=ca", "--maxrregcount=32", "-v", "-O2"}));
    EXPECT_TRUE(ptxas_options_for({"--diag-error=940", "-lineinfo"}).empty());
    EXPECT_EQ(virtual_architecture("sm_90"), "compute_90");
    EXPECT_EQ(virtual_architecture("sm_90a"), "compute_90a");
}

TEST(PtxCompiler, NvrtcPtxEditedAndAssembled) {
    if (!nvrtc_available() || !have_ptxas()) GTEST_SKIP() << "no NVRTC or ptxas in this build";
    DeviceCompileRequest request;
    request.source = kPtxCompilerKernel;
    request.arch = "sm_90";
    request.ptx = true;
    const DeviceCompileResult ptx = compile_with_nvrtc(request);
    ASSERT_TRUE(ptx.ok) << ptx.log;
    EXPECT_TRUE(ptx.cubin.empty());
    ASSERT_NE(ptx.ptx.find(".target sm_90"), std::string::npos) << ptx.ptx;
    const PtxModule module = parse_ptx(ptx.ptx, "variant.ptx");
    ASSERT_EQ(print_ptx(module), ptx.ptx);
    const int entry = find_entry(module, "scale");
    ASSERT_GE(entry, 0);

    const DeviceCompileResult plain = compile_ptx(ptx.ptx, "sm_90", {});
    ASSERT_TRUE(plain.ok) << plain.log;
    EXPECT_EQ(plain.compiler, "ptxas");
    EXPECT_EQ(plain.cubin.substr(0, 4), "\x7f" "ELF");
    // The kernel without its first instruction that is an add: still assembles, and differs.
    int add = -1;
    for (std::size_t i = 0; i < module.instructions.size() && add < 0; ++i)
        if (module.instructions[i].opcode.rfind("add", 0) == 0) add = static_cast<int>(i);
    ASSERT_GE(add, 0);
    const std::string edited = apply_ptx_edits(module, {Edit{Edit::Op::PtxDelete, std::to_string(add), ""}}).ptx;
    const DeviceCompileResult deleted = compile_ptx(edited, "sm_90", {"-dlcm=ca"});
    ASSERT_TRUE(deleted.ok) << deleted.log;
    EXPECT_NE(deleted.cubin, plain.cubin);
}

TEST(PtxCompiler, BrokenPtxIsACompileErrorNamingTheLine) {
    if (!have_ptxas()) GTEST_SKIP() << "no ptxas in this toolkit";
    const std::string ptx = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n\tadd.s32 %r1, %r2, 1;\n\tret;\n}\n";
    const DeviceCompileResult r = compile_ptx(ptx, "sm_90", {});
    EXPECT_FALSE(r.ok);
    EXPECT_TRUE(r.cubin.empty());
    EXPECT_NE(r.log.find("variant.ptx"), std::string::npos) << r.log;  // the scratch path is not shown
    EXPECT_NE(r.log.find("line 6"), std::string::npos) << r.log;
}

}  // namespace
}  // namespace gi
