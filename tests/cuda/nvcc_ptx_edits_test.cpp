// A genome's PTX edits built into an object by the user's nvcc command (gi-tool nvcc-ptx-edits,
// cuda/nvcc_ptx_edits.hpp, issue 46), no GPU: the object's sm_90 code is the cubin the cuda
// evaluator's PTX path (VariantBuilder: its PTX edited, ptxas alone) built for the same genome,
// the other architecture's code is untouched, and a kernel nvcc compiles differently from the
// PTX the edits index is refused with no object written.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <fstream>

#include "../support/device_images.hpp"
#include "../support/gi_tool_run.hpp"
#include "../support/toolkit.hpp"
#include "compile/cubin_sections.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "cuda/variant_builder.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_module.hpp"

namespace gi {
namespace {

const char* kNvccPtxKernel = R"(#include <vector>
#ifndef SCALE
#define SCALE 2
#endif
__global__ void scale(float* out, const float* in, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = SCALE * k * in[i] + 1.0f;
}
int main() { std::vector<float> v(4); return static_cast<int>(v.size()) - 4; }
)";

// The PTX the edits index, as the cuda evaluator makes it (ptx_as_evaluated: nvcc's front end's).
PtxModule evaluated_ptx_of_kernel(const std::vector<std::string>& options) {
    DeviceCompileRequest request;
    request.source = kNvccPtxKernel;
    request.options = options;
    request.arch = "sm_90";
    const DeviceCompileResult r = ptx_as_evaluated(request);
    EXPECT_TRUE(r.ok) << r.log;
    return parse_ptx(r.ptx, "variant.ptx");
}

// A deletion that changes the code (the first add.f32) and a swap (the first two mov.u32), found by
// opcode in the PTX the edits index.
Genome edits_for(const PtxModule& module) {
    std::vector<int> adds, movs;
    for (std::size_t i = 0; i < module.instructions.size(); ++i) {
        if (module.instructions[i].opcode == "add.f32") adds.push_back(static_cast<int>(i));
        if (module.instructions[i].opcode == "mov.u32") movs.push_back(static_cast<int>(i));
    }
    EXPECT_FALSE(adds.empty());
    EXPECT_GE(movs.size(), 2u);
    if (adds.empty() || movs.size() < 2) return {};
    return parse_genome("ptx:del(" + std::to_string(adds[0]) + ") ptx:swap(" + std::to_string(movs[0]) + "," +
                        std::to_string(movs[1]) + ")");
}

std::string object_bytes(const std::filesystem::path& path) { return test::file_text(path); }

class NvccPtxEdits : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available() || !test::have_nvcc()) GTEST_SKIP() << "no NVRTC or nvcc in this build";
        dir_ = test::fresh_temp_dir("gi-nvcc-ptx-edits");
        std::filesystem::create_directories(dir_);
        use_kernel(kNvccPtxKernel);
    }
    void use_kernel(const std::string& text) {
        kernel_ = text;
        std::ofstream(dir_ / "k.cu", std::ios::trunc) << text;
    }
    // The evaluator's build of the genome's PTX edits (compile options `flags`), for sm_90.
    DeviceCompileResult evaluator_build(const Genome& genome, std::vector<std::string> flags) {
        CudaEvaluatorOptions options;
        options.function = "scale";
        options.compile_options = flags;
        VariantBuilder builder(options, "sm_90", kernel_, "scale", {}, dir_);
        EXPECT_TRUE(builder.prepare().ok);
        for (const std::string& f : ptx_edits_flag(genome)) flags.push_back(f);
        return builder.compile(kernel_, flags);
    }
    // nvcc's compile of k.cu to `object` for sm_80 and sm_90 (with `extra` options), through
    // gi-tool nvcc-ptx-edits when `genome` is not empty.
    ProcessResult compile(const std::string& genome, const std::string& object, const std::vector<std::string>& extra,
                          const std::vector<std::string>& nvrtc_options) {
        std::vector<std::string> argv;
        if (!genome.empty()) {
            argv = {"nvcc-ptx-edits", "--genome", genome, "--function", "scale", "--arch", "90", "--source", (dir_ / "k.cu").string()};
            for (const std::string& o : nvrtc_options) argv.insert(argv.end(), {"--option", o});
            argv.push_back("--");
        }
        argv.insert(argv.end(), {find_nvcc(), "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                                 "arch=compute_90,code=[sm_90,compute_90]", "-O3"});
        argv.insert(argv.end(), extra.begin(), extra.end());
        argv.insert(argv.end(), {"-MD", "-MT", object, "-MF", object + ".d", "-c", (dir_ / "k.cu").string(), "-o", object});
        if (genome.empty()) return run_process(argv);
        return test::gi_tool(argv);
    }
    std::filesystem::path dir_;
    std::string kernel_;
};

TEST_F(NvccPtxEdits, TheObjectHoldsTheCubinTheEvaluatorBuilt) {
    const Genome genome = edits_for(evaluated_ptx_of_kernel({"-DSCALE=2"}));
    ASSERT_FALSE(genome.edits.empty());
    const DeviceCompileResult evaluator = evaluator_build(genome, {"-DSCALE=2"});
    ASSERT_TRUE(evaluator.ok) << evaluator.log;
    ASSERT_EQ(evaluator.compiler, "ptxas");

    const std::string edited = (dir_ / "edited.o").string(), plain = (dir_ / "plain.o").string();
    const ProcessResult e = compile(genome_to_text(genome), edited, {"-DSCALE=2"}, {"-DSCALE=2"});
    ASSERT_EQ(e.exit_code, 0) << e.err << e.out;
    const ProcessResult p = compile("", plain, {"-DSCALE=2"}, {});
    ASSERT_EQ(p.exit_code, 0) << p.err << p.out;
    EXPECT_NE(test::file_text(edited + ".d").find("k.cu"), std::string::npos) << "no dependency file";

    const std::vector<std::string> ours = test::embedded_cubins(object_bytes(edited));
    const std::vector<std::string> theirs = test::embedded_cubins(object_bytes(plain));
    ASSERT_EQ(ours.size(), 2u);
    ASSERT_EQ(theirs.size(), 2u);
    // One image is the evaluator's kernel and not nvcc's own; the other is nvcc's sm_80 code, untouched.
    int evaluators = 0, untouched = 0;
    for (const std::string& image : ours) {
        if (same_device_code(evaluator.cubin, image)) {
            ++evaluators;
            EXPECT_FALSE(same_device_code(theirs[0], image) || same_device_code(theirs[1], image))
                << "the edited sm_90 code is nvcc's unedited code";
        } else if (same_device_code(image, theirs[0]) || same_device_code(image, theirs[1])) {
            ++untouched;
        }
    }
    EXPECT_EQ(evaluators, 1);
    EXPECT_EQ(untouched, 1);
    // The PTX embedded for compute_90 is the edited one too (a newer GPU's JIT builds the same kernel).
    EXPECT_NE(object_bytes(edited), object_bytes(plain));
}

TEST_F(NvccPtxEdits, AKernelNvccCompilesOtherwiseIsRefusedAndNoObjectWritten) {
    const Genome genome = edits_for(evaluated_ptx_of_kernel({"-DSCALE=2"}));
    ASSERT_FALSE(genome.edits.empty());
    const std::string object = (dir_ / "k.o").string();
    std::ofstream(object) << "an old object";
    // The edits index the PTX of SCALE=2; the build compiles SCALE=3.
    const ProcessResult r = compile(genome_to_text(genome), object, {"-DSCALE=3"}, {"-DSCALE=2"});
    EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
    EXPECT_NE(r.err.find("kernel scale (_Z5scalePfPKfif) in nvcc's PTX for compute_90 is not the code its PTX edits were "
                         "made on (nvcc's PTX of "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("add.f32"), std::string::npos) << r.err;  // both instructions' texts
    EXPECT_NE(r.err.find("mul.f32"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(object));
}

// A kernel with a __shared__ array, whose PTX NVRTC and nvcc's front end make differently (64-bit
// against 32-bit shared addresses: bench/results/2026-11-29-cpu-ptx-front-ends.md). The edits now
// index nvcc's PTX in the evaluator as in the build, so the object holds the evaluator's cubin;
// on NVRTC's PTX the build refused and shipped the original.
const char* kSharedKernel = R"(#include <vector>
__global__ void scale(float* out, const float* in, int n, float k) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    if (i < n) out[i] = 2.0f * k * tile[threadIdx.x] + tile[(threadIdx.x + 1) % 256];
}
int main() { std::vector<float> v(4); return static_cast<int>(v.size()) - 4; }
)";

TEST_F(NvccPtxEdits, AKernelWithSharedMemoryGetsTheCubinTheEvaluatorBuilt) {
    use_kernel(kSharedKernel);
    DeviceCompileRequest request;
    request.source = kSharedKernel;
    request.name = (dir_ / "k.cu").string();
    request.arch = "sm_90";
    const DeviceCompileResult base = ptx_as_evaluated(request);
    ASSERT_TRUE(base.ok) << base.log;
    EXPECT_EQ(base.compiler, "nvcc");
    EXPECT_NE(base.ptx.find("st.shared.f32 \t[%r"), std::string::npos) << "nvcc's 32-bit shared addresses";
    const Genome genome = edits_for(parse_ptx(base.ptx, "k.ptx"));
    ASSERT_FALSE(genome.edits.empty());
    const DeviceCompileResult evaluator = evaluator_build(genome, {});
    ASSERT_TRUE(evaluator.ok) << evaluator.log;
    ASSERT_EQ(evaluator.compiler, "ptxas");

    const std::string edited = (dir_ / "edited.o").string(), plain = (dir_ / "plain.o").string();
    const ProcessResult e = compile(genome_to_text(genome), edited, {}, {});
    ASSERT_EQ(e.exit_code, 0) << e.err << e.out;
    const ProcessResult p = compile("", plain, {}, {});
    ASSERT_EQ(p.exit_code, 0) << p.err << p.out;
    int evaluators = 0;
    for (const std::string& image : test::embedded_cubins(object_bytes(edited))) evaluators += same_device_code(evaluator.cubin, image);
    EXPECT_EQ(evaluators, 1);
    for (const std::string& image : test::embedded_cubins(object_bytes(plain)))
        EXPECT_FALSE(same_device_code(evaluator.cubin, image)) << "the edits changed nothing";
}

}  // namespace
}  // namespace gi
