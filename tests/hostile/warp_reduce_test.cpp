// The warp-shuffle transformation (shfl_<file>_<line>) on code written to trip it: comments and odd
// spacing in the loop, a pragma before it, a volatile array, a template's block size, the same
// array reduced twice, the loop's header replaced by edits. Each is either not offered, skipped
// with its reason, or gives text that compiles (NVRTC, sm_90).
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::vector<std::string> shfl_genes_of(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::WarpReduce) names.push_back(gene.name);
    return names;
}

void expect_shfl_compiles(const std::string& source) {
    if (!nvrtc_available()) return;
    DeviceCompileRequest request;
    request.source = source;
    request.arch = "sm_90";
    const DeviceCompileResult result = compile_with_nvrtc(request);
    EXPECT_TRUE(result.ok) << result.log << "\n" << source;
}

TEST(HostileWarpReduce, OddSpellingsAVolatileArrayAndATemplateGiveTextThatCompiles) {
    const char* const kernel =
        "template <int BS>\n"                                                                           // 1
        "__global__ void k(const float* in, float* out) {\n"                                            // 2
        "    __shared__ volatile float sdata[BS];\n"                                                    // 3
        "    const unsigned int tid = threadIdx.x; // thread\n"                                         // 4
        "    sdata[tid] = in[blockIdx.x * BS + tid];\n"                                                 // 5
        "    __syncthreads();\n"                                                                        // 6
        "    #pragma unroll 1\n"                                                                        // 7
        "    for (int s = BS / 2; /* halves */ s > 0u; s = s >> 1)\n"                                   // 8
        "    {\n"                                                                                       // 9
        "        if (tid<s) /* fold */ sdata [ tid ] = sdata[ s+tid ] + sdata[tid]; // sdata[tid + 1]\n"  // 10
        "        __syncthreads( );\n"                                                                   // 11
        "    }\n"                                                                                       // 12
        "    if (tid == 0) { out[blockIdx.x] = sdata[0] /* sdata[1] */; }\n"                            // 13
        "}\n"                                                                                           // 14
        "template __global__ void k<256>(const float*, float*);\n";
    const Grammar grammar = test::grammar_of(kernel, {}, "odd name+1.cu");
    EXPECT_EQ(shfl_genes_of(grammar), (std::vector<std::string>{"shfl_odd_name_1.cu_8"}));
    const AppliedVariant variant = apply_genome(parse_genome("shfl_odd_name_1.cu_8=1 volatile=0"), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    // The comments keep their place; the pragma stands before both loops.
    EXPECT_NE(variant.source.find("#pragma unroll 1\nfor (int s = BS / 2; s > 32; s = s >> 1)\n    {\n"
                                  "        if (tid<s) /* fold */ sdata [ tid ] = sdata[ s+tid ] + sdata[tid]; // sdata[tid + 1]\n"),
              std::string::npos)
        << variant.source;
    EXPECT_NE(variant.source.find("} else {\n#pragma unroll 1\nfor (int s = BS / 2; /* halves */ s > 0u; s = s >> 1)"),
              std::string::npos)
        << variant.source;
    expect_shfl_compiles(variant.source);
    expect_shfl_compiles(apply_genome(parse_genome("shfl_odd_name_1.cu_8=1 volatile=1"), grammar).source);
}

TEST(HostileWarpReduce, TheSameArrayReducedTwiceOffersOnlyTheSecond) {
    // A mean then a variance: after the first reduction every thread reads sdata[0] and stores
    // sdata[tid] again, which the first site's premise does not allow; the second's holds.
    const char* const kernel =
        "__global__ void k(const float* in, float* mean, float* var) {\n"                          // 1
        "    __shared__ double sdata[256];\n"                                                       // 2
        "    unsigned tid = threadIdx.x;\n"                                                         // 3
        "    double x = in[blockIdx.x * 256 + tid];\n"                                              // 4
        "    sdata[tid] = x; __syncthreads();\n"                                                    // 5
        "    for (unsigned s = 128; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }\n"  // 6
        "    double m = sdata[0] / 256; __syncthreads();\n"                                         // 7
        "    sdata[tid] = (x - m) * (x - m); __syncthreads();\n"                                    // 8
        "    for (unsigned s = 128; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }\n"  // 9
        "    if (tid == 0) { mean[blockIdx.x] = m; var[blockIdx.x] = sdata[0] / 256; }\n"           // 10
        "}\n";
    const Grammar grammar = test::grammar_of(kernel);
    EXPECT_EQ(shfl_genes_of(grammar), (std::vector<std::string>{"shfl_k.cu_9"}));
    const AppliedVariant variant = apply_genome(parse_genome("shfl_k.cu_9=1"), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty());
    expect_shfl_compiles(variant.source);
}

TEST(HostileWarpReduce, AHeaderAnEditReplacedTurnsItOff) {
    const char* const kernel =
        "__global__ void k(const float* in, float* out, int n) {\n"                           // 1
        "    __shared__ float sdata[256];\n"                                                   // 2
        "    unsigned tid = threadIdx.x;\n"                                                    // 3
        "    float t = 0;\n"                                                                   // 4
        "    for (int i = tid; i < n; i += blockDim.x) t += in[i];\n"                          // 5
        "    sdata[tid] = t; __syncthreads();\n"                                               // 6
        "    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {\n"                            // 7
        "        if (tid < s) sdata[tid] += sdata[tid + s];\n"                                 // 8
        "        __syncthreads();\n"                                                           // 9
        "    }\n"                                                                              // 10
        "    if (tid == 0) out[blockIdx.x] = sdata[0];\n"                                      // 11
        "}\n";
    const Grammar grammar = test::grammar_of(kernel);
    ASSERT_EQ(shfl_genes_of(grammar), (std::vector<std::string>{"shfl_k.cu_7"}));
    const AppliedVariant condition = apply_genome(parse_genome("shfl_k.cu_7=1 <for2_k.cu_7><for2_k.cu_5>"), grammar);
    ASSERT_EQ(condition.skipped_edits.size(), 1u) << condition.source;
    EXPECT_EQ(condition.skipped_edits[0], "shfl_k.cu_7=1 (not applied: its condition is not 's > 0')");
    const AppliedVariant step = apply_genome(parse_genome("shfl_k.cu_7=1 <for3_k.cu_7><for3_k.cu_5>"), grammar);
    ASSERT_EQ(step.skipped_edits.size(), 1u) << step.source;
    EXPECT_EQ(step.skipped_edits[0], "shfl_k.cu_7=1 (not applied: its step is not 's >>= 1')");
    // The loop before unrolled, this one finished by the warp: both apply.
    const AppliedVariant both = apply_genome(parse_genome("shfl_k.cu_7=1 unroll_k.cu_5=4"), grammar);
    EXPECT_TRUE(both.skipped_edits.empty()) << both.skipped_edits.front();
    expect_shfl_compiles(both.source);
}

TEST(HostileWarpReduce, DirectivesAroundTheLoopDoNotHideIt) {
    const char* const kernel =
        "#define HALF 128\n"                                                                          // 1
        "__global__ void k(const float* in, float* out, int n) {\n"                                   // 2
        "    __shared__ float sdata[256];\n"                                                          // 3
        "    unsigned tid = threadIdx.x;\n"                                                           // 4
        "    float t = 0;\n"                                                                          // 5
        "    #pragma unroll 4\n"                                                                      // 6
        "    for (int i = tid; i < n; i += 256) t += in[i];\n"                                        // 7
        "    sdata[tid] = t; __syncthreads();\n"                                                      // 8
        "    for (unsigned s = HALF; s > 0; s >>= 1) { if (tid < s) sdata[tid] += sdata[tid + s]; __syncthreads(); }\n"  // 9
        "#if defined(SCALED) \\\n"                                                                    // 10
        "    && SCALED\n"                                                                             // 11
        "    if (tid == 0) out[blockIdx.x] = sdata[0] * 2;\n"                                         // 12
        "#else\n"                                                                                     // 13
        "    if (tid == 0) out[blockIdx.x] = sdata[0];\n"                                             // 14
        "#endif\n"                                                                                    // 15
        "}\n";
    const Grammar grammar = test::grammar_of(kernel);
    EXPECT_EQ(shfl_genes_of(grammar), (std::vector<std::string>{"shfl_k.cu_9"}));
    const AppliedVariant variant = apply_genome(parse_genome("shfl_k.cu_9=1"), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty());
    expect_shfl_compiles(variant.source);
}

}  // namespace
}  // namespace gi
