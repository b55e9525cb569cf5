// The vector-load transformation (vec_<file>_<line>) on the GPU: a kernel whose loop starts at
// every alignment (j from i - i % 7) and stops at the array's end, so each thread runs the scalar
// peel, the float2/float4 trips and the scalar tail. Its variants reproduce the original's outputs
// exactly (the same additions in the same order). The grammar and NVRTC part runs anywhere; the
// runs skip without a GPU.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "../support/gpu_fixture.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/cuda_classify.hpp"
#include "testcase/case_io.hpp"
#include "variant/apply.hpp"
#include "worker/run_result.hpp"
#include "worker/worker_process.hpp"

namespace gi {
namespace {

using namespace std::chrono_literals;

const char* const kGpuVecKernel =
    "__global__ void scale(float* out, const float* in, int n) {\n"                                   // 1
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                            // 2
    "    if (i >= n) return;\n"                                                                       // 3
    "    float acc = 0.0f;\n"                                                                         // 4
    "    for (int j = i - i % 7; j < min(i - i % 7 + 9, n); ++j) acc += j == i ? 2.0f * in[j] : 0.0f;\n"  // 5
    "    out[i] = acc;\n"                                                                             // 6
    "}\n";

std::string gpu_vec_cubin(const std::string& source) {
    DeviceCompileRequest request;
    request.source = source;
    request.arch = "sm_90";
    const DeviceCompileResult out = compile_with_nvrtc(request);
    EXPECT_TRUE(out.ok) << out.log << "\n" << source;
    return out.cubin;
}

worker::Message gpu_vec_run(const std::string& role, const std::string& cubin) {
    return worker::Message{
        "run",
        {{"slot", "0"}, {"role", role}, {"kernel", "scale"}, {"warmups", "1"}, {"repetitions", "3"}, {"launches-per-time", "1"}},
        cubin};
}

TEST(GpuVectorLoad, VariantsReproduceTheOriginalAtEveryAlignmentAndTail) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const Grammar grammar = test::grammar_of(kGpuVecKernel, {}, "scale.cu");
    ASSERT_TRUE(grammar.find_gene("vec_scale.cu_5"));
    std::vector<std::pair<std::string, std::string>> variants;  // value, cubin
    for (const std::string value : {"2", "4"}) {
        const AppliedVariant variant = apply_genome(parse_genome("vec_scale.cu_5=" + value), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
        variants.emplace_back(value, gpu_vec_cubin(variant.source));
    }
    GI_REQUIRE_GPU();
    gpu_test::TempFolder folder;
    worker::WorkerProcess process(worker::WorkerOptions{gpu_test::worker_path(), {}, {}, {}});
    ASSERT_EQ(process.request({"hello", {}, {}}, 60s).type, "ready");
    const std::filesystem::path dir = write_test_case(gpu_test::scale_case(1 << 16), folder.path() / "slot-0");
    const worker::Message loaded = process.request({"load-case", {{"slot", "0"}, {"path", dir.string()}}, {}}, 60s);
    ASSERT_EQ(loaded.type, "case-loaded") << loaded.get("message");
    const RunVerdict original = classify_run_reply(process.request(gpu_vec_run("original", gpu_vec_cubin(kGpuVecKernel)), 60s));
    ASSERT_EQ(original.result.status, EvalStatus::Ok) << original.result.detail;
    ASSERT_EQ(original.mismatches, 0u) << original.result.detail;
    for (const auto& [value, cubin] : variants) {
        SCOPED_TRACE("vec_scale.cu_5=" + value);
        process.send(gpu_vec_run("variant", cubin), 10s);
        worker::Message reply = process.receive("run", 10s);
        while (reply.type == "started" || reply.type == "checked") reply = process.receive("run", 10s);
        const RunVerdict verdict = classify_run_reply(reply);
        EXPECT_EQ(verdict.result.status, EvalStatus::Ok) << verdict.result.detail;
        EXPECT_EQ(verdict.mismatches, 0u) << verdict.result.detail;
    }
}

}  // namespace
}  // namespace gi
