// gi-tool nvcc-launcher (issue 46), no GPU: the compile of a wrapper whose cached variant has PTX
// edits (cache apply --ptx-edits) yields the sm_90 code the cuda evaluator built for the genome,
// without the user's launcher (ccache would cache an object it cannot rebuild); a build whose nvcc
// makes other PTX than the edits index compiles the fallback (sm_90: the original kernel) with one
// line (--require: exit 1); any other source passes through the user's launcher untouched.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "../support/device_images.hpp"
#include "../support/gi_tool_run.hpp"
#include "../support/toolkit.hpp"
#include "compile/cubin_sections.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "cuda/variant_builder.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_module.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

const char* kLauncherKernel = R"(#include <vector>
#define SCALE 2
#ifndef OFFSET
#define OFFSET 1.0f
#endif
__global__ void scale(float* out, const float* in, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = SCALE * k * in[i] + OFFSET;
}
int main() { std::vector<float> v(4); return static_cast<int>(v.size()) - 4; }
)";

class NvccLauncher : public ::testing::Test {
protected:
    void SetUp() override {
        if (!nvrtc_available() || !test::have_nvcc()) GTEST_SKIP() << "no NVRTC or nvcc in this build";
        nvcc_ = find_nvcc();
        std::ofstream(dir_.path() / "scale.cu") << kLauncherKernel;
        std::ofstream(dir_.path() / "other.cu") << "__global__ void other(int* p) { *p = 1; }\n";
        // Stands for ccache: marks that it ran, then runs the compile.
        fake_launcher_ = (dir_.path() / "fake-ccache").string();
        std::ofstream(fake_launcher_) << "#!/bin/sh\ntouch \"" << marker() << "\"\nexec \"$@\"\n";
        ::chmod(fake_launcher_.c_str(), 0755);
        out_ = dir_.path() / "gen";
    }
    std::string marker() const { return (dir_.path() / "launcher-ran").string(); }
    std::vector<std::string> kernel_args(std::vector<std::string> args) const {
        args.insert(args.end(), {(dir_.path() / "scale.cu").string(), "--function", "scale", "--param", "SCALE=2,3",
                                 "--tolerance", "exact"});
        return args;
    }
    // The PTX the edits index (the evaluator's) of the variant SCALE=3 and edits on it: the first mul.f32 (3 * k) deleted, two mov.u32 swapped.
    std::string genome(const std::string& arch = "sm_90") const {
        DeviceCompileRequest request;
        request.source = kLauncherKernel;
        request.source.replace(request.source.find("#define SCALE 2"), 15, "#define SCALE 3");
        request.name = "scale.cu";
        request.arch = arch;
        const DeviceCompileResult r = ptx_as_evaluated(request);
        EXPECT_TRUE(r.ok) << r.log;
        const PtxModule module = parse_ptx(r.ptx);
        std::vector<int> adds, movs;
        for (std::size_t i = 0; i < module.instructions.size(); ++i) {
            if (module.instructions[i].opcode == "mul.f32") adds.push_back(static_cast<int>(i));
            if (module.instructions[i].opcode == "mov.u32") movs.push_back(static_cast<int>(i));
        }
        EXPECT_FALSE(adds.empty());
        EXPECT_GE(movs.size(), 2u);
        if (adds.empty() || movs.size() < 2) return "SCALE=3";
        return "SCALE=3 ptx:del(" + std::to_string(adds[0]) + ") ptx:swap(" + std::to_string(movs[0]) + "," +
               std::to_string(movs[1]) + ")";
    }
    void write_and_apply(const std::string& genome_text, const std::string& genome_80 = "") {
        const std::string cache = (dir_.path() / "gi-cache").string();
        ProcessResult r = test::gi_tool(kernel_args({"cache", "write", "--arch", "90", "--cache-dir", cache, "--genome", genome_text,
                                       "--allow-unvalidated"}));
        ASSERT_TRUE(r.succeeded()) << r.out << r.err;
        if (!genome_80.empty()) {
            r = test::gi_tool(kernel_args({"cache", "write", "--arch", "80", "--cache-dir", cache, "--genome", genome_80,
                                           "--allow-unvalidated"}));
            ASSERT_TRUE(r.succeeded()) << r.out << r.err;
        }
        r = test::gi_tool(kernel_args({"cache", "apply", "--ptx-edits", "--cache-dir", cache, "--arch", "80", "--arch", "90",
                                       "--wrapper", wrapper(), "--header", (out_ / "scale.gi.h").string(), "--options-file",
                                       (out_ / "scale.options").string()}));
        ASSERT_TRUE(r.succeeded()) << r.out << r.err;
    }
    std::string wrapper() const { return (out_ / "scale.gi.cu").string(); }
    std::vector<std::string> nvcc_args(const std::string& source, const std::string& object,
                                       const std::vector<std::string>& extra) const {
        std::vector<std::string> a = {nvcc_, "-gencode", "arch=compute_80,code=sm_80", "-gencode",
                                      "arch=compute_90,code=[sm_90,compute_90]", "-O3"};
        a.insert(a.end(), extra.begin(), extra.end());
        a.insert(a.end(), {"-c", source, "-o", object});
        return a;
    }
    ProcessResult launch(const std::vector<std::string>& compile, const std::vector<std::string>& own = {}) {
        std::error_code ec;
        fs::remove(marker(), ec);
        std::vector<std::string> argv = {"nvcc-launcher", "--compiler", nvcc_, "--wrapper", wrapper(), "--include",
                                         dir_.path().string()};
        argv.insert(argv.end(), own.begin(), own.end());
        argv.insert(argv.end(), {"--", fake_launcher_});
        argv.insert(argv.end(), compile.begin(), compile.end());
        return test::gi_tool(argv);
    }
    // The evaluator's build of `genome_text` for `arch`: NVRTC's PTX of the variant file, edited, ptxas.
    DeviceCompileResult evaluator_cubin(const std::string& genome_text, const std::string& arch) {
        const std::string variant = test::file_text(out_ / ("scale." + arch + ".cu"));
        CudaEvaluatorOptions options;
        options.function = "scale";
        VariantBuilder builder(options, arch, variant, "scale", {}, dir_.path());
        EXPECT_TRUE(builder.prepare().ok);
        return builder.compile(variant, ptx_edits_flag(parse_genome(genome_text)));
    }
    // The image of `object` that is the same device code as `reference`, or "".
    std::string image_like(const std::string& object, const std::string& reference) {
        for (const std::string& image : test::embedded_cubins(test::file_text(object)))
            if (same_device_code(reference, image)) return image;
        return "";
    }
    TemporaryDirectory dir_{"gi-nvcc-launcher"};
    fs::path out_;
    std::string nvcc_, fake_launcher_;
};

TEST_F(NvccLauncher, TheWrapperGetsTheEvaluatorsCodeWithoutTheUsersLauncher) {
    const std::string genome_text = genome();
    write_and_apply(genome_text);
    const std::string object = (dir_.path() / "w.o").string();
    const ProcessResult r = launch(nvcc_args(wrapper(), object, {"--options-file=" + (out_ / "scale.options").string()}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_FALSE(fs::exists(marker())) << "the user's launcher ran the edited compile";

    // The evaluator's build of the genome: NVRTC's PTX of the variant, edited, ptxas.
    const std::string variant = test::file_text(out_ / "scale.sm_90.cu");
    CudaEvaluatorOptions options;
    options.function = "scale";
    VariantBuilder builder(options, "sm_90", variant, "scale", {}, dir_.path());
    ASSERT_TRUE(builder.prepare().ok);
    const DeviceCompileResult evaluator = builder.compile(variant, ptx_edits_flag(parse_genome(genome_text)));
    ASSERT_TRUE(evaluator.ok) << evaluator.log;
    ASSERT_EQ(evaluator.compiler, "ptxas");
    EXPECT_FALSE(image_like(object, evaluator.cubin).empty()) << "no image of the object is the evaluator's sm_90 code";
}

TEST_F(NvccLauncher, EveryEditedArchitectureInOneCompile) {
    const std::string genome_90 = genome("sm_90"), genome_80 = genome("sm_80");
    write_and_apply(genome_90, genome_80);
    EXPECT_NE(test::file_text(out_ / "scale.ptx-edits").find("80\tscale\t"), std::string::npos);
    const std::string object = (dir_.path() / "w.o").string();
    const ProcessResult r = launch(nvcc_args(wrapper(), object, {"--options-file=" + (out_ / "scale.options").string()}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    for (const auto& [arch, genome_text] : {std::pair<std::string, std::string>{"sm_80", genome_80}, {"sm_90", genome_90}}) {
        const DeviceCompileResult evaluator = evaluator_cubin(genome_text, arch);
        ASSERT_TRUE(evaluator.ok) << evaluator.log;
        EXPECT_FALSE(image_like(object, evaluator.cubin).empty()) << "no image of the object is the evaluator's " << arch << " code";
    }
}

TEST_F(NvccLauncher, OtherPtxFromNvccCompilesTheFallbackSayingWhy) {
    write_and_apply(genome());
    const std::string object = (dir_.path() / "w.o").string();
    // OFFSET differs from the PTX the edits index: nvcc's kernel is other code.
    const std::vector<std::string> compile =
        nvcc_args(wrapper(), object, {"-DOFFSET=2.0f", "--options-file=" + (out_ / "scale.options").string()});
    ProcessResult r = launch(compile);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("gi-optimize: scale sm_90: original kernel: the variant's PTX edits cannot be applied: "),
              std::string::npos)
        << r.out << r.err;
    EXPECT_TRUE(fs::exists(marker())) << "the fallback compile should go through the user's launcher";
    // Its code is nvcc's of the original kernel: sm_90's (the fallback) and sm_80's (no entry).
    const std::string original = (dir_.path() / "original.o").string();
    const ProcessResult p = run_process(nvcc_args((dir_.path() / "scale.cu").string(), original, {"-DOFFSET=2.0f"}));
    ASSERT_TRUE(p.succeeded()) << p.err;
    int same = 0;
    for (const std::string& image : test::embedded_cubins(test::file_text(original)))
        if (!image_like(object, image).empty()) ++same;
    EXPECT_EQ(same, 2) << "the fallback's code is not the original kernel's";

    fs::remove(object);
    r = launch(compile, {"--require"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("gi-optimize: scale sm_90: error: the variant's PTX edits cannot be applied: "), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(object));
}

TEST_F(NvccLauncher, OtherSourcesPassThroughTheUsersLauncher) {
    write_and_apply(genome());
    const std::string object = (dir_.path() / "other.o").string();
    const ProcessResult r = launch(nvcc_args((dir_.path() / "other.cu").string(), object, {}));
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(fs::exists(marker()));
    EXPECT_TRUE(fs::exists(object));
}

}  // namespace
}  // namespace gi
