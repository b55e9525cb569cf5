// The shared-memory staging transformation (stage_<file>_<line>) on code written to trip it:
// comments inside the index and the read, the radius as an expression, the array also written, a
// return before the loop, a second reader of the array, a template kernel, a kernel that already
// has shared memory. Each is either not offered or gives text that compiles (NVRTC, sm_90).
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::vector<std::string> stage_genes_of(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Stage) names.push_back(gene.name);
    return names;
}

// The variant with every stage_ gene on, which must apply and compile for sm_90.
std::string staged_and_compiled(const Grammar& grammar, const std::string& name) {
    std::string genome;
    for (const std::string& gene : stage_genes_of(grammar)) genome += gene + "=1 ";
    const AppliedVariant variant = apply_genome(parse_genome(genome), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    if (nvrtc_available()) {
        DeviceCompileRequest request;
        request.source = variant.source.substr(0, variant.source.find("void launch"));
        request.name = name;
        request.arch = "sm_90";
        const DeviceCompileResult result = compile_with_nvrtc(request);
        EXPECT_TRUE(result.ok) << result.log << "\n" << request.source;
    }
    return variant.source;
}

TEST(HostileSharedStage, CommentsAnExpressionRadiusAndAnEarlyReturn) {
    const char* const kernel =
        "#define HALF_WIDTH 3\n"                                                                        // 1
        "#define TPB 128\n"                                                                             // 2
        "__global__ void blur(const float* /* samples */ src, float* dst, int len) {\n"                 // 3
        "    int /* flat */ gid = threadIdx . x + blockIdx.x*blockDim.x;\n"                             // 4
        "    if (gid >= len) return;  // tail threads leave before the barrier would stand\n"          // 5
        "    float sum = 0.f;\n"                                                                        // 6
        "    for (int d = -(HALF_WIDTH + 1); d <= HALF_WIDTH + 1; d++) {  // taps\n"                    // 7
        "        const int at = gid + d; /* neighbour */\n"                                             // 8
        "        if (0 <= at && len > at) sum += src[ at ];  // \"src[at]\"\n"                          // 9
        "    }\n"                                                                                       // 10
        "    dst[gid] = sum;\n"                                                                         // 11
        "}\n"                                                                                           // 12
        "void launch(const float* s, float* d, int n) { blur<<<(n + TPB - 1) / TPB, TPB>>>(s, d, n); }\n";
    const Grammar grammar = test::grammar_of(kernel);
    ASSERT_EQ(stage_genes_of(grammar), (std::vector<std::string>{"stage_k.cu_7"}));
    const std::string source = staged_and_compiled(grammar, "blur.cu");
    EXPECT_NE(source.find("__shared__ float gi_stage7[(TPB) + (HALF_WIDTH + 1) - (-(HALF_WIDTH+1))];"), std::string::npos)
        << source;
    EXPECT_NE(source.find("sum += gi_stage7[( at ) - gi_stage7_base];  // \"src[at]\""), std::string::npos) << source;
    // The barrier stands before the early return: every thread of the block reaches it.
    EXPECT_LT(source.find("__syncthreads();"), source.find("if (gid >= len) return;"));
}

TEST(HostileSharedStage, TheArrayWrittenOrReadElsewhereIsNotOffered) {
    const std::string head = "#define R 2\n__global__ void __launch_bounds__(128) k(const float* in, float* out, int n) {\n"
                             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float acc = 0;\n";
    const std::string loop = "    for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n) acc += in[j]; }\n";
    EXPECT_EQ(stage_genes_of(test::grammar_of(head + loop + "    if (i < n) out[i] = acc;\n}\n")).size(), 1u);
    // Written through a cast: the copy would be stale.
    EXPECT_TRUE(stage_genes_of(test::grammar_of(head + loop + "    if (i < n) ((float*)in)[i] = acc;\n}\n")).empty());
    // A second reader after the loop, and a second loop reading it.
    EXPECT_TRUE(stage_genes_of(test::grammar_of(head + loop + "    if (i < n) out[i] = acc * in[i];\n}\n")).empty());
    EXPECT_TRUE(stage_genes_of(test::grammar_of(head + loop + loop + "    if (i < n) out[i] = acc;\n}\n")).empty());
    // The pointer moved before the loop: the load at the top would read the old window.
    EXPECT_TRUE(stage_genes_of(test::grammar_of(
                    "#define R 2\n__global__ void __launch_bounds__(128) k(const float* in, float* out, int n) {\n"
                    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    float acc = 0;\n    n = n - 1;\n" + loop +
                    "    if (i < n) out[i] = acc;\n}\n"))
                    .empty());
    // A barrier inside a branch only some threads take, before the loop, is the original's to
    // answer for; a return inside the loop is not staged.
    EXPECT_TRUE(stage_genes_of(test::grammar_of(head +
                                                "    for (int k = -R; k <= R; ++k) { int j = i + k; if (j < 0) return; "
                                                "if (j >= 0 && j < n) acc += in[j]; }\n    if (i < n) out[i] = acc;\n}\n"))
                    .empty());
}

TEST(HostileSharedStage, ATemplateKernelBesideItsOwnSharedMemory) {
    const char* const kernel =
        "template <typename T, int RAD>\n"                                                              // 1
        "__global__ void __launch_bounds__(256) stencil(const T* __restrict__ x, T* y, int n) {\n"      // 2
        "    __shared__ T scratch[32];\n"                                                               // 3
        "    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                                    // 4
        "    T acc = 0;\n"                                                                              // 5
        "    for (int k = -RAD; k <= RAD; ++k) {\n"                                                     // 6
        "        int j = i + k;\n"                                                                      // 7
        "        if (j >= 0 && j < n) acc += x[j];\n"                                                   // 8
        "    }\n"                                                                                       // 9
        "    if (threadIdx.x < 32) scratch[threadIdx.x] = acc;\n"                                       // 10
        "    __syncthreads();\n"                                                                        // 11
        "    if (i < n) y[i] = acc + scratch[threadIdx.x % 32];\n"                                      // 12
        "}\n"                                                                                           // 13
        "template __global__ void stencil<float, 5>(const float*, float*, int);\n";                    // 14
    const Grammar grammar = test::grammar_of(kernel);
    ASSERT_EQ(stage_genes_of(grammar), (std::vector<std::string>{"stage_k.cu_6"}));
    const std::string source = staged_and_compiled(grammar, "stencil.cu");
    EXPECT_NE(source.find("__shared__ T gi_stage6[(256) + (RAD) - (-RAD)];"), std::string::npos) << source;
    EXPECT_NE(source.find("__shared__ T scratch[32];"), std::string::npos) << "its own array kept beside";
}

}  // namespace
}  // namespace gi
