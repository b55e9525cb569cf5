// The thread-coarsening transformation (coarsen_<file>_<line>) on code written to trip it: the
// index spelled with spaces and comments, a grid function in lower and upper case, a second kernel
// in the file (whose grid the function may be), a grid-stride loop, the kernel's inner loop
// unrolled too. Each is either not offered or gives text that compiles (NVRTC, sm_90).
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

std::vector<std::string> coarsen_genes_of(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Coarsen) names.push_back(gene.name);
    return names;
}

TEST(HostileThreadCoarsen, OddSpellingsAndAnUnrolledInnerLoopGiveTextThatCompiles) {
    const char* const kernel =
        "__global__ void k(const float* __restrict__ x, float* y, int n, int m) {\n"               // 1
        "    int /* flat */ i = threadIdx . x + blockIdx.x*blockDim.x;\n"                          // 2
        "    if (i < n)\n"                                                                         // 3
        "        for (int j = 0; j < m; ++j) y[i] += x[i * m + j]; // row i\n"                     // 4
        "}\n"                                                                                      // 5
        "#ifndef __CUDACC_RTC__\n"                                                                 // 6
        "dim3 K_GRID(int n) { return dim3((n + 255) / 256); }\n"                                   // 7
        "#endif\n";
    const Grammar grammar = test::grammar_of(kernel, {}, "odd name+1.cu");
    EXPECT_EQ(coarsen_genes_of(grammar), (std::vector<std::string>{"coarsen_odd_name_1.cu_2"}));
    const AppliedVariant variant =
        apply_genome(parse_genome("coarsen_odd_name_1.cu_2=4 unroll_odd_name_1.cu_4=2"), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    EXPECT_NE(variant.source.find("int i = (blockIdx.x * 4 + gi_coarsen2) * blockDim.x + threadIdx.x;\n    if (i < n)"),
              std::string::npos)
        << variant.source;
    EXPECT_NE(variant.source.find("return dim3((((n + 255) / 256) + 4 - 1) / 4);"), std::string::npos) << variant.source;
    if (!nvrtc_available()) return;
    DeviceCompileRequest request;
    request.source = variant.source;
    request.arch = "sm_90";
    const DeviceCompileResult result = compile_with_nvrtc(request);
    EXPECT_TRUE(result.ok) << result.log << "\n" << variant.source;
}

TEST(HostileThreadCoarsen, NotOfferedWhereTheGridMayBeAnotherKernelsOrTheThreadsStride) {
    const std::string grid = "dim3 k_grid(int n) { return dim3((n + 255) / 256); }\n";
    // Two kernels, one grid function.
    EXPECT_TRUE(coarsen_genes_of(test::grammar_of(
                    "__global__ void a(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 1; }\n"
                    "__global__ void b(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = 2; }\n" +
                    grid))
                    .empty());
    // A grid-stride loop: its threads already do several elements, and gridDim would change.
    EXPECT_TRUE(coarsen_genes_of(test::grammar_of(
                    "__global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {\n"
                    "    for (int j = i; j < n; j += blockDim.x * gridDim.x) y[j] = 1; } }\n" +
                    grid))
                    .empty());
    // The index hidden in the body by another declaration of i.
    EXPECT_TRUE(coarsen_genes_of(test::grammar_of(
                    "__global__ void k(float* y, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) {\n"
                    "    int i = 0; y[i] = 1; } }\n" +
                    grid))
                    .empty());
}

}  // namespace
}  // namespace gi
