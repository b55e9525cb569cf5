// The thread-coarsening transformation (issue 46, coarsen_<file>_<line>=1|2|4): the text it writes
// on a small kernel and its grid function, exactly; the spellings it is offered for and those it
// refuses, with their reasons; that an edit breaking its premise turns it off and says why; that
// minimisation drops it like any setting; and, with NVRTC, that every value compiles, under the
// hang guard too.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "grammar/thread_coarsen.hpp"
#include "variant/apply.hpp"
#include "variant/hang_guard.hpp"

namespace gi {
namespace {

const char* const kCoarsenScale =
    "#define BLOCK 128\n"                                                      // 1
    "__global__ void scale(const float* in, float* out, int n, float a) {\n"  // 2
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                    // 3
    "    if (i < n) {\n"                                                      // 4
    "        float v = in[i];\n"                                              // 5
    "        out[i] = a * v;\n"                                               // 6
    "    }\n"                                                                 // 7
    "}\n"                                                                     // 8
    "dim3 scale_grid(int n) { return dim3((n + BLOCK - 1) / BLOCK); }\n";     // 9

std::string coarsen_source(const Grammar& grammar, const std::string& genome) {
    const std::string source = apply_genome(parse_genome(genome), grammar).source;
    return source.substr(source.find('\n') + 1);
}

std::vector<std::string> coarsen_genes_in(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Coarsen) names.push_back(gene.name);
    return names;
}

TEST(ThreadCoarsen, EachThreadDoesTheBlocksOfKAndTheGridFunctionDividesTheGrid) {
    const Grammar grammar = test::grammar_of(kCoarsenScale);
    EXPECT_EQ(coarsen_genes_in(grammar), (std::vector<std::string>{"coarsen_k.cu_3"}));
    const Gene* gene = grammar.find_gene("coarsen_k.cu_3");
    ASSERT_TRUE(gene);
    EXPECT_TRUE(is_transform_gene(gene->kind));
    EXPECT_EQ(gene->values, (std::vector<std::string>{"1", "2", "4"}));
    EXPECT_EQ(gene->default_value, "1");
    test::expect_reproduces(grammar, kCoarsenScale);
    EXPECT_EQ(coarsen_source(grammar, "coarsen_k.cu_3=2"),
              "#define BLOCK 128\n"
              "__global__ void scale(const float* in, float* out, int n, float a) {\n"
              "for (int gi_coarsen3 = 0; gi_coarsen3 < 2; ++gi_coarsen3) {\n"
              "int i = (blockIdx.x * 2 + gi_coarsen3) * blockDim.x + threadIdx.x;\n"
              "    if (i < n) {\n"
              "        float v = in[i];\n"
              "        out[i] = a * v;\n"
              "    }\n"
              "}\n"
              "}\n"
              "dim3 scale_grid(int n) { return dim3((((n + BLOCK - 1) / BLOCK) + 2 - 1) / 2); }\n");
    EXPECT_NE(coarsen_source(grammar, "coarsen_k.cu_3=4").find("return dim3((((n + BLOCK - 1) / BLOCK) + 4 - 1) / 4);"),
              std::string::npos);
}

TEST(ThreadCoarsen, OfferedForAnEarlyReturnAndTheOtherSpellings) {
    const Grammar grammar = test::grammar_of(
        "__global__ void k(const float* x, float* y, unsigned n) {\n"                          // 1
        "    const unsigned idx = threadIdx.x + blockDim.x * blockIdx.x;  // one element\n"    // 2
        "    if (n <= idx) return;\n"                                                          // 3
        "    float s = 0;\n"                                                                   // 4
        "    for (int j = 0; j < 4; ++j) s += x[idx * 4 + j];\n"                               // 5
        "    y[idx] = s;\n"                                                                    // 6
        "}\n"                                                                                  // 7
        "dim3 MakeGrid(unsigned n, dim3 block) { return dim3((n + block.x - 1) / block.x, 1, 1); }\n");
    EXPECT_EQ(coarsen_genes_in(grammar), (std::vector<std::string>{"coarsen_k.cu_2"}));
    const std::string four = coarsen_source(grammar, "coarsen_k.cu_2=4");
    EXPECT_NE(four.find("const unsigned idx = (blockIdx.x * 4 + gi_coarsen2) * blockDim.x + threadIdx.x;  // one element\n"
                        "    if (n <= idx) return;\n"),
              std::string::npos)
        << four;
    EXPECT_NE(four.find("return dim3((((n + block.x - 1) / block.x) + 4 - 1) / 4, 1, 1);"), std::string::npos) << four;
}

// Each body's reason from coarsen_plan; none is offered.
TEST(ThreadCoarsen, NotOfferedWhereThePremiseDoesNotHoldAndSaysWhy) {
    struct Refused {
        const char* body;
        const char* why;
    };
    const Refused refused[] = {
        {" float v = 1; int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = v; ",
         "its first statement does not declare i = blockIdx.x * blockDim.x + threadIdx.x"},
        {" int i = blockIdx.x * blockDim.y + threadIdx.x; if (i < n) out[i] = 1; ",
         "its first statement does not declare i = blockIdx.x * blockDim.x + threadIdx.x"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = 1; ",
         "the statement after the index is not the bounds check 'if (i < n) ...' or 'if (i >= n) return;' with the rest "
         "of the kernel under it"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1; out[0] = 2; ",
         "the statement after the index is not the bounds check 'if (i < n) ...' or 'if (i >= n) return;' with the rest "
         "of the kernel under it"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1; else out[0] = 2; ",
         "the statement after the index is not the bounds check 'if (i < n) ...' or 'if (i >= n) return;' with the rest "
         "of the kernel under it"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[blockIdx.x] = 1; ",
         "the kernel reads blockIdx after its index: its threads are not one element each"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i >= n) return; for (; i < n; i += gridDim.x) out[i] = 1; ",
         "the kernel reads gridDim after its index: its threads are not one element each"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { out[i] = 1; __syncthreads(); } ",
         "the kernel calls a function (a barrier, an atomic, a helper)"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(out, 1.0f); ",
         "the kernel calls a function (a barrier, an atomic, a helper)"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { __shared__ float s[4]; out[i] = s[0]; } ",
         "the kernel declares a __shared__ local"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { if (out[i] < 0) return; out[i] = 1; } ",
         "the kernel can leave its body early ('return')"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { out[i] = n; n = n - 1; } ",
         "the kernel changes n, which one iteration would hand to the next"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { out += 1; out[i] = 0; } ",
         "the kernel changes out, which one iteration would hand to the next"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { out[i] = 0; ++i; out[i] = 1; } ",
         "the kernel writes its index i"},
    };
    for (const Refused& r : refused) {
        std::string why;
        EXPECT_FALSE(coarsen_plan(r.body, why)) << r.body;
        EXPECT_EQ(why, r.why) << r.body;
        const Grammar grammar = test::grammar_of(std::string("__global__ void k(float* out, int n) {") + r.body +
                                                 "}\ndim3 k_grid(int n) { return dim3((n + 127) / 128); }\n");
        EXPECT_TRUE(coarsen_genes_in(grammar).empty()) << r.body;
    }
}

TEST(ThreadCoarsen, NotOfferedWithoutTheFilesOneGridFunction) {
    const std::string kernel =
        "__global__ void k(float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) out[i] = 1; }\n";
    EXPECT_EQ(coarsen_genes_in(test::grammar_of(kernel + "dim3 k_grid(int n) { return dim3((n + 127) / 128); }\n")).size(), 1u);
    // No host code sizes the grid here: the program's launch would keep the original grid.
    EXPECT_TRUE(coarsen_genes_in(test::grammar_of(kernel)).empty());
    // A launcher's own grid besides the function: which one launches is not known.
    EXPECT_TRUE(coarsen_genes_in(test::grammar_of(kernel + "dim3 k_grid(int n) { return dim3((n + 127) / 128); }\n"
                                                           "void run(float* o, int n) { dim3 grid(n / 128); k<<<grid, 128>>>(o, n); }\n"))
                    .empty());
    // A grid function that computes more than one expression.
    EXPECT_TRUE(coarsen_genes_in(test::grammar_of(kernel + "dim3 k_grid(int n) { int b = (n + 127) / 128; return dim3(b); }\n"))
                    .empty());
}

TEST(ThreadCoarsen, AnEditThatBreaksThePremiseTurnsItOffAndSaysWhy) {
    const Grammar grammar = test::grammar_of(kCoarsenScale);
    // The bounds check dropped by its own gene: the extra blocks' iterations would write past n.
    const Gene* unguard = grammar.find_gene("unguard_k.cu_4");
    ASSERT_TRUE(unguard);
    const AppliedVariant both = apply_genome(parse_genome("coarsen_k.cu_3=2 unguard_k.cu_4=1"), grammar);
    ASSERT_EQ(both.skipped_edits.size(), 1u);
    EXPECT_EQ(both.skipped_edits[0],
              "coarsen_k.cu_3=2 (not applied: the statement after the index is not the bounds check 'if (i < n) ...' or "
              "'if (i >= n) return;' with the rest of the kernel under it)");
    EXPECT_NE(both.source.find("return dim3((n + BLOCK - 1) / BLOCK);"), std::string::npos) << "the grid as written";
    // An edit inside the body that keeps the premise: coarsened with it.
    const AppliedVariant kept = apply_genome(parse_genome("coarsen_k.cu_3=4 <_k.cu_6>+<_k.cu_6>"), grammar);
    EXPECT_TRUE(kept.skipped_edits.empty()) << kept.skipped_edits.front();
    EXPECT_NE(kept.source.find("gi_coarsen3 < 4"), std::string::npos);
}

TEST(ThreadCoarsen, MinimisationDropsItLikeAnySetting) {
    const Grammar grammar = test::grammar_of(kCoarsenScale);
    const Genome genome = parse_genome("coarsen_k.cu_3=4 <_k.cu_6>");
    EXPECT_TRUE(validate_genome(genome, grammar).empty());
    EXPECT_EQ(genome_items(genome).front(), "coarsen_k.cu_3=4");
    EXPECT_EQ(apply_genome(without_item(genome, 0), grammar).source.find("gi_coarsen"), std::string::npos);
    EXPECT_EQ(genome_to_text(canonical_genome(parse_genome("coarsen_k.cu_3=1"), grammar)), "");
    EXPECT_FALSE(validate_genome(parse_genome("coarsen_k.cu_3=3"), grammar).empty()) << "3 is not a value it offers";
}

TEST(ThreadCoarsen, EveryValueCompilesWithNvrtcAndUnderTheHangGuard) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const Grammar grammar = test::grammar_of(kCoarsenScale);
    for (const std::string value : {"2", "4"}) {
        const AppliedVariant variant = apply_genome(parse_genome("coarsen_k.cu_3=" + value), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty());
        // NVRTC compiles the device side: the grid function is host code.
        std::string device = variant.source.substr(0, variant.source.find("dim3 scale_grid"));
        for (const std::string& source : {device, guard_hangs(device, "scale.cu").source}) {
            DeviceCompileRequest request;
            request.source = source;
            request.name = "scale.cu";
            request.arch = "sm_90";
            const DeviceCompileResult result = compile_with_nvrtc(request);
            EXPECT_TRUE(result.ok) << value << "\n" << result.log << "\n" << source;
        }
    }
}

}  // namespace
}  // namespace gi
