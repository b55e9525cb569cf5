// Staging a re-read array through shared memory (issue 46, stage_<file>_<line>=0|1): the text it
// writes on a small 1-D convolution, exactly; the spellings it is offered for and those it refuses,
// with their reasons; that an edit breaking its premise turns it off and says why; that
// minimisation drops it like any setting; and, with NVRTC, that both values compile for sm_90,
// under the hang guard too.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "grammar/shared_stage.hpp"
#include "variant/apply.hpp"
#include "variant/hang_guard.hpp"

namespace gi {
namespace {

const char* const kStageConv =
    "#define R 2\n"                                                                   // 1
    "#define BLOCK 128\n"                                                             // 2
    "__global__ void conv(const float* in, const float* w, float* out, int n) {\n"    // 3
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"                            // 4
    "    float acc = 0.0f;\n"                                                         // 5
    "    for (int k = -R; k <= R; ++k) {\n"                                           // 6
    "        int j = i + k;\n"                                                        // 7
    "        if (j >= 0 && j < n) acc += w[k + R] * in[j];\n"                         // 8
    "    }\n"                                                                         // 9
    "    if (i < n) out[i] = acc;\n"                                                  // 10
    "}\n"                                                                             // 11
    "void run(const float* in, const float* w, float* out, int n) {\n"                // 12
    "    conv<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(in, w, out, n);\n"                  // 13
    "}\n";                                                                            // 14

std::string stage_source(const Grammar& grammar, const std::string& genome) {
    const std::string source = apply_genome(parse_genome(genome), grammar).source;
    return source.substr(source.find('\n') + 1);  // after the variant's #line
}

std::vector<std::string> stage_genes_in(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Stage) names.push_back(gene.name);
    return names;
}

const char* const kStagedConvBody =
    "__global__ void conv(const float* in, const float* w, float* out, int n) {\n"
    "    __shared__ float gi_stage6[(BLOCK) + (R) - (-R)];\n"
    "    const bool gi_stage6_on = blockDim.x <= (BLOCK) && blockDim.y == 1 && blockDim.z == 1;\n"
    "    const long long gi_stage6_base = (long long)blockIdx.x * blockDim.x + (-R) + 0;\n"
    "    if (gi_stage6_on) {\n"
    "        for (int gi_stage6_t = threadIdx.x; gi_stage6_t < (int)blockDim.x + (R) - (-R); gi_stage6_t += blockDim.x) {\n"
    "            const long long gi_stage6_g = gi_stage6_base + gi_stage6_t;\n"
    "            if (gi_stage6_g >= 0 && gi_stage6_g < (n)) gi_stage6[gi_stage6_t] = in[gi_stage6_g];\n"
    "        }\n"
    "        __syncthreads();\n"
    "    }\n"
    "\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    float acc = 0.0f;\n"
    "    if (gi_stage6_on) {\n"
    "for (int k = -R; k <= R; ++k) {\n"
    "        int j = i + k;\n"
    "        if (j >= 0 && j < n) acc += w[k + R] * gi_stage6[(j) - gi_stage6_base];\n"
    "    }\n"
    "} else {\n"
    "for (int k = -R; k <= R; ++k) {\n"
    "        int j = i + k;\n"
    "        if (j >= 0 && j < n) acc += w[k + R] * in[j];\n"
    "    }\n"
    "}\n"
    "    if (i < n) out[i] = acc;\n"
    "}\n";

TEST(SharedStage, TheBlocksWindowIsLoadedOnceAndTheLoopReadsIt) {
    const Grammar grammar = test::grammar_of(kStageConv);
    EXPECT_EQ(stage_genes_in(grammar), (std::vector<std::string>{"stage_k.cu_6"}));
    const Gene* gene = grammar.find_gene("stage_k.cu_6");
    ASSERT_TRUE(gene);
    EXPECT_TRUE(is_transform_gene(gene->kind));
    EXPECT_EQ(gene->values, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(gene->default_value, "0");
    test::expect_reproduces(grammar, kStageConv);
    const std::string staged = stage_source(grammar, "stage_k.cu_6=1");
    EXPECT_EQ(staged.substr(0, staged.find("void run")), std::string("#define R 2\n#define BLOCK 128\n") + kStagedConvBody);
    EXPECT_EQ(stage_source(grammar, "stage_k.cu_6=0"), kStageConv);
}

TEST(SharedStage, OfferedForTheOtherSpellings) {
    // The read written in place with an offset, the counter from 0, a < bound, the block size from
    // __launch_bounds__, a constexpr radius, an early return, an unroll pragma.
    const Grammar grammar = test::grammar_of(
        "constexpr int RADIUS = 3;\n"                                                                         // 1
        "__global__ void __launch_bounds__(256) k(const float* __restrict__ x, float* y, int n) {\n"          // 2
        "    const int t = threadIdx.x + blockIdx.x * blockDim.x;\n"                                          // 3
        "    if (t >= n) return;\n"                                                                           // 4
        "    float s = 0;\n"                                                                                  // 5
        "#pragma unroll\n"                                                                                    // 6
        "    for (int q = 0; q < 2 * RADIUS + 1; q++)\n"                                                      // 7
        "        if (t + q - RADIUS >= 0 && t + q - RADIUS < n) s += x[t + q - RADIUS];  // tap\n"            // 8
        "    y[t] = s;\n"                                                                                     // 9
        "}\n");
    ASSERT_EQ(stage_genes_in(grammar), (std::vector<std::string>{"stage_k.cu_7"}));
    const std::string staged = stage_source(grammar, "stage_k.cu_7=1");
    EXPECT_NE(staged.find("__shared__ float gi_stage7[(256) + ((2 * RADIUS + 1) - 1) - (0)];"), std::string::npos) << staged;
    EXPECT_NE(staged.find("(long long)blockIdx.x * blockDim.x + (0) + (0 - RADIUS);"), std::string::npos) << staged;
    EXPECT_NE(staged.find("s += gi_stage7[(t + q - RADIUS) - gi_stage7_base];\n} else {"), std::string::npos) << staged;
    // The load and its barrier stand before the early return, which every thread reaches.
    EXPECT_LT(staged.find("__syncthreads();"), staged.find("if (t >= n) return;"));
    EXPECT_NE(staged.find("if (gi_stage7_on) {\n#pragma unroll\n    for"), std::string::npos) << staged;
    EXPECT_NE(staged.find("} else {\n#pragma unroll\n    for"), std::string::npos) << staged;
}

// Each kernel's reason from stage_plan; none is offered.
TEST(SharedStage, NotOfferedWhereThePremiseDoesNotHoldAndSaysWhy) {
    struct Refused {
        const char* before;
        const char* loop;
        const char* after;
        const char* why;
    };
    const char* const index = " int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0; ";
    const char* const loop = "for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n) acc += in[j]; }";
    const char* const store = " if (i < n) out[i] = acc; ";
    const Refused refused[] = {
        {" float acc = 0; int i = threadIdx.x; ", loop, store,
         "the kernel declares no index i = blockIdx.x * blockDim.x + threadIdx.x before the loop"},
        {" unsigned i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0; ", loop, store,
         "the index i is not declared as a signed int (i + k below 0 must stay negative)"},
        {index, "for (int k = -m; k <= m; ++k) { int j = i + k; if (j >= 0 && j < n) acc += in[j]; }", store,
         "the loop's limits are not compile-time constants (numbers, macros, constexpr or template parameters)"},
        {index, "for (int k = -R; k <= R; k += 2) { int j = i + k; if (j >= 0 && j < n) acc += in[j]; }", store,
         "the loop's header is not for (int k = LO; k <= HI; ++k)"},
        {index, "for (int k = -R; k <= R; ++k) acc += in[i + k];", store,
         "the loop's reads of in are not under if (X >= 0 && X < n) with n a parameter or a constant"},
        {index, "for (int k = -R; k <= R; ++k) { int j = i + k; if (j < n) acc += in[j]; }", store,
         "the loop's reads of in are not under if (X >= 0 && X < n) with n a parameter or a constant"},
        {index, "for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n || m > 0) acc += in[j]; }", store,
         "the loop's reads of in are not under if (X >= 0 && X < n) with n a parameter or a constant"},
        {index, "for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < (n ? n : m)) acc += in[j]; }", store,
         "the loop's reads of in are not under if (X >= 0 && X < n) with n a parameter or a constant"},
        {index, "for (unsigned k = 0; k <= 2 * R; ++k) { int j = i + k - R; if (j >= 0 && j < n) acc += in[j]; }", store,
         "the loop's counter is not declared as an int in its header (for (int k = LO; ...))"},
        {index, "for (int k = -R; k <= R; ++k) { int j = 2 * i + k; if (j >= 0 && j < n) acc += in[j]; }", store,
         "in is not read as in[i + k] (plus a constant)"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = in[i]; ", loop, store, "in is used before the loop"},
        {index, loop, " if (i < n) out[i] = acc + in[i]; ", "in is used after the loop"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0; out[i] = 0; ", loop, store,
         "the kernel writes memory or calls a function before the loop (the staged copy is loaded first)"},
        {index, "for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n) { acc += in[j]; out[j] = 0; } }", store,
         "the loop writes memory or calls a function"},
        {" int i = blockIdx.x * blockDim.x + threadIdx.x; float acc = 0; for (int r = 0; r < 4; ++r) ", loop, store,
         "the loop stands inside another loop (the index's window could move between its trips)"},
        {index, loop, " n = 0; if (i < n) out[i] = acc; ", "the kernel changes n, which the load at its top would read unchanged"},
        {index, loop, " i = 0; if (i < n) out[i] = acc; ", "the kernel writes its index i after declaring it"},
        {index, "for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n) acc += in[j] * in[i]; }", store,
         "in is read at two different indexes in the loop"},
        {index, "for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n) acc += in[j]; __syncthreads(); }", store,
         "the loop holds a barrier or a return"},
    };
    StageContext context;
    context.array = "in";
    context.element = "float";
    context.block = "128";
    context.constants = {"R"};
    context.parameters = {"in", "out", "n", "m"};
    for (const Refused& r : refused) {
        std::string why;
        EXPECT_FALSE(stage_plan(r.before, r.loop, r.after, context, why)) << r.loop;
        EXPECT_EQ(why, r.why) << r.before << r.loop << r.after;
        const Grammar grammar = test::grammar_of(
            std::string("#define R 2\n__global__ void __launch_bounds__(128) k(const float* in, float* out, int n, int m) {") +
            r.before + r.loop + r.after + "}\n");
        EXPECT_TRUE(stage_genes_in(grammar).empty()) << r.before << r.loop << r.after;
    }
    // The same kernel with its premise whole is offered: the refusals above are the changes'.
    std::string why;
    EXPECT_TRUE(stage_plan(index, loop, store, context, why)) << why;
}

TEST(SharedStage, NotOfferedWithoutAKnownBlockSize) {
    const std::string kernel =
        "#define R 2\n__global__ void conv(const float* in, float* out, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x;"
        " float acc = 0; for (int k = -R; k <= R; ++k) { int j = i + k; if (j >= 0 && j < n) acc += in[j]; } if (i < n) out[i] = acc; }\n";
    EXPECT_TRUE(stage_genes_in(test::grammar_of(kernel)).empty());
    EXPECT_TRUE(stage_genes_in(test::grammar_of(kernel + "void run(float* o, const float* x, int n, int b) { conv<<<n / b, b>>>(x, o, n); }\n"))
                    .empty());
    EXPECT_EQ(stage_genes_in(test::grammar_of(kernel + "void run(float* o, const float* x, int n) { conv<<<n / 64, 64>>>(x, o, n); }\n"))
                  .size(),
              1u);
    // The corpus's style: the file's one host function that sizes the block.
    EXPECT_EQ(stage_genes_in(test::grammar_of(kernel + "#define BLOCK_SIZE 256\ndim3 conv_block() { return dim3(BLOCK_SIZE); }\n"))
                  .size(),
              1u);
    EXPECT_TRUE(stage_genes_in(test::grammar_of(kernel + "dim3 conv_block(int b) { return dim3(b); }\n")).empty());
}

TEST(SharedStage, AnEditThatBreaksThePremiseTurnsItOffAndSaysWhy) {
    const Grammar grammar = test::grammar_of(kStageConv);
    // Line 8's guard deleted: the reads past n would come from an unloaded tile.
    const AppliedVariant broken = apply_genome(parse_genome("stage_k.cu_6=1 <_k.cu_8>"), grammar);
    ASSERT_EQ(broken.skipped_edits.size(), 1u) << broken.source;
    EXPECT_EQ(broken.skipped_edits[0], "stage_k.cu_6=1 (not applied: the loop does not read in)");
    EXPECT_EQ(broken.source.find("gi_stage"), std::string::npos);
    // An edit after the loop keeps it.
    const AppliedVariant kept = apply_genome(parse_genome("stage_k.cu_6=1 <_k.cu_10>+<_k.cu_10>"), grammar);
    EXPECT_TRUE(kept.skipped_edits.empty()) << kept.skipped_edits.front();
    EXPECT_NE(kept.source.find("gi_stage6[(j) - gi_stage6_base]"), std::string::npos);
}

TEST(SharedStage, MinimisationDropsItLikeAnySetting) {
    const Grammar grammar = test::grammar_of(kStageConv);
    const Genome genome = parse_genome("stage_k.cu_6=1 <_k.cu_10>+<_k.cu_10>");
    EXPECT_TRUE(validate_genome(genome, grammar).empty());
    EXPECT_EQ(genome_items(genome).front(), "stage_k.cu_6=1");
    EXPECT_EQ(apply_genome(without_item(genome, 0), grammar).source.find("gi_stage"), std::string::npos);
    EXPECT_EQ(genome_to_text(canonical_genome(parse_genome("stage_k.cu_6=0"), grammar)), "");
    EXPECT_FALSE(validate_genome(parse_genome("stage_k.cu_6=2"), grammar).empty()) << "2 is not a value it offers";
}

TEST(SharedStage, BothValuesCompileWithNvrtcAndUnderTheHangGuard) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const Grammar grammar = test::grammar_of(kStageConv);
    for (const std::string value : {"0", "1"}) {
        const AppliedVariant variant = apply_genome(parse_genome("stage_k.cu_6=" + value), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty());
        // NVRTC compiles the device side: the launcher is host code.
        const std::string device = variant.source.substr(0, variant.source.find("void run"));
        for (const std::string& source : {device, guard_hangs(device, "conv.cu").source}) {
            DeviceCompileRequest request;
            request.source = source;
            request.name = "conv.cu";
            request.arch = "sm_90";
            const DeviceCompileResult result = compile_with_nvrtc(request);
            EXPECT_TRUE(result.ok) << value << "\n" << result.log << "\n" << source;
        }
    }
}

}  // namespace
}  // namespace gi
