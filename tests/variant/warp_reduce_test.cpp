// The warp-shuffle transformation (issue 46 item 1, shfl_<file>_<line>=0|1): the text it writes on a
// block sum, exactly; the spellings it is offered for and those it refuses; that it composes with
// edits and is skipped, and says why, where an edit breaks its premise; that minimisation drops it
// like any setting; and, with NVRTC, that both values compile, under the hang guard too, to
// shuffles.
#include <gtest/gtest.h>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "grammar/warp_reduce.hpp"
#include "variant/apply.hpp"
#include "variant/hang_guard.hpp"

namespace gi {
namespace {

const char* const kShflSumKernel =
    "__global__ void row_sum(const float* in, float* out, int n)\n"  // 1
    "{\n"                                                            // 2
    "    __shared__ float sdata[256];\n"                             // 3
    "    unsigned int tid = threadIdx.x;\n"                          // 4
    "    float sum = 0.0f;\n"                                        // 5
    "    for (int i = tid; i < n; i += blockDim.x)\n"                // 6
    "        sum += in[blockIdx.x * n + i];\n"                       // 7
    "    sdata[tid] = sum;\n"                                        // 8
    "    __syncthreads();\n"                                         // 9
    "    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"  // 10
    "        if (tid < s)\n"                                         // 11
    "            sdata[tid] += sdata[tid + s];\n"                    // 12
    "        __syncthreads();\n"                                     // 13
    "    }\n"                                                        // 14
    "    if (tid == 0) out[blockIdx.x] = sdata[0];\n"                // 15
    "}\n";

// The variant's source without the line the variant stage puts first.
std::string shfl_source(const Grammar& grammar, const std::string& genome) {
    const std::string source = apply_genome(parse_genome(genome), grammar).source;
    return source.substr(source.find('\n') + 1);
}

std::vector<std::string> shfl_genes_in(const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::WarpReduce) names.push_back(gene.name);
    return names;
}

std::size_t shfl_count(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    return count;
}

TEST(WarpReduce, TheGrammarOffersOneOnOffGeneAtTheReductionLoop) {
    const Grammar grammar = test::grammar_of(kShflSumKernel);
    EXPECT_EQ(shfl_genes_in(grammar), (std::vector<std::string>{"shfl_k.cu_10"}));
    const Gene* shfl = grammar.find_gene("shfl_k.cu_10");
    ASSERT_TRUE(shfl);
    EXPECT_TRUE(is_transform_gene(shfl->kind));
    EXPECT_EQ(shfl->values, (std::vector<std::string>{"0", "1"}));
    EXPECT_EQ(shfl->default_value, "0");
    EXPECT_TRUE(shfl->numeric);
    test::expect_reproduces(grammar, kShflSumKernel);
    EXPECT_EQ(shfl_source(grammar, "shfl_k.cu_10=0"), kShflSumKernel);
}

TEST(WarpReduce, TheWarpDoesTheLastSixStepsWhereTheBlockIsAPowerOfTwo) {
    const Grammar grammar = test::grammar_of(kShflSumKernel);
    EXPECT_EQ(shfl_source(grammar, "shfl_k.cu_10=1"),
              "__global__ void row_sum(const float* in, float* out, int n)\n"
              "{\n"
              "    __shared__ float sdata[256];\n"
              "    unsigned int tid = threadIdx.x;\n"
              "    float sum = 0.0f;\n"
              "    for (int i = tid; i < n; i += blockDim.x)\n"
              "        sum += in[blockIdx.x * n + i];\n"
              "    sdata[tid] = sum;\n"
              "    __syncthreads();\n"
              "    if ((blockDim.x / 2) >= 32 && ((blockDim.x / 2) & ((blockDim.x / 2) - 1)) == 0"
              " && blockDim.x % 32 == 0) {\n"
              "for (unsigned int s = blockDim.x / 2; s > 32; s >>= 1) {\n"
              "        if (tid < s)\n"
              "            sdata[tid] += sdata[tid + s];\n"
              "        __syncthreads();\n"
              "    }\n"
              "if (tid < 32) {\n"
              "auto gi_shfl10 = sdata[tid];\n"
              "gi_shfl10 += sdata[tid + 32];\n"
              "gi_shfl10 += __shfl_down_sync(0xffffffffu, gi_shfl10, 16);\n"
              "gi_shfl10 += __shfl_down_sync(0xffffffffu, gi_shfl10, 8);\n"
              "gi_shfl10 += __shfl_down_sync(0xffffffffu, gi_shfl10, 4);\n"
              "gi_shfl10 += __shfl_down_sync(0xffffffffu, gi_shfl10, 2);\n"
              "gi_shfl10 += __shfl_down_sync(0xffffffffu, gi_shfl10, 1);\n"
              "if (tid == 0) sdata[0] = gi_shfl10;\n"
              "}\n"
              "__syncthreads();\n"
              "} else {\n"
              "for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {\n"
              "        if (tid < s)\n"
              "            sdata[tid] += sdata[tid + s];\n"
              "        __syncthreads();\n"
              "    }\n"
              "}\n"
              "    if (tid == 0) out[blockIdx.x] = sdata[0];\n"
              "}\n");
}

// The common spellings, one kernel each (the line of each kernel's loop in the gene's name).
TEST(WarpReduce, OfferedForTheCommonSpellings) {
    const Grammar grammar = test::grammar_of(
        "#define BLOCK 256\n"                                                                            // 1
        "__global__ void a(float* out) {\n"                                                              // 2
        "    __shared__ float sm[BLOCK];\n"                                                              // 3
        "    int t = threadIdx.x;\n"                                                                     // 4
        "    sm[t] = t; __syncthreads();\n"                                                              // 5
        "    for (int s = BLOCK / 2; s > 0; s /= 2) { if (t < s) sm[t] = sm[t] + sm[t + s]; __syncthreads(); }\n"  // 6
        "    if (t == 0) out[blockIdx.x] = sm[0];\n"                                                     // 7
        "}\n"                                                                                            // 8
        "__global__ void b(float* out) {\n"                                                              // 9
        "    extern __shared__ float cache[];\n"                                                         // 10
        "    cache[threadIdx.x] = threadIdx.x; __syncthreads();\n"                                       // 11
        "    for (unsigned s = blockDim.x >> 1; s; s = s >> 1) {\n"                                      // 12
        "        if (threadIdx.x < s) { cache[threadIdx.x] = fmaxf(cache[threadIdx.x + s], cache[threadIdx.x]); }\n"  // 13
        "        __syncthreads();\n"                                                                     // 14
        "    }\n"                                                                                        // 15
        "    if (threadIdx.x == 0) out[blockIdx.x] = cache[0];\n"                                        // 16
        "}\n"                                                                                            // 17
        "__global__ void c(int* out) {\n"                                                                // 18
        "    __shared__ int m[128];\n"                                                                   // 19
        "    const unsigned tid = threadIdx.x;\n"                                                        // 20
        "    m[tid] = tid; __syncthreads();\n"                                                           // 21
        "    #pragma unroll\n"                                                                           // 22
        "    for (unsigned s = 64; s > 0; s >>= 1) { __syncthreads(); if (tid < s) m[tid] = max(m[tid], m[s + tid]); }\n"  // 23
        "    if (tid == 0) out[blockIdx.x] = m[0] * 2;\n"                                                // 24
        "}\n");
    EXPECT_EQ(shfl_genes_in(grammar), (std::vector<std::string>{"shfl_k.cu_6", "shfl_k.cu_12", "shfl_k.cu_23"}));
    const std::string a = shfl_source(grammar, "shfl_k.cu_6=1");
    EXPECT_NE(a.find("if ((BLOCK / 2) >= 32 && ((BLOCK / 2) & ((BLOCK / 2) - 1)) == 0 && blockDim.x % 32 == 0) {\n"
                     "for (int s = BLOCK / 2; s > 32; s /= 2)"),
              std::string::npos)
        << a;
    EXPECT_NE(a.find("gi_shfl6 += sm[t + 32];\n"), std::string::npos) << a;
    const std::string b = shfl_source(grammar, "shfl_k.cu_12=1");
    EXPECT_NE(b.find("for (unsigned s = blockDim.x >> 1; s > 32; s = s >> 1)"), std::string::npos) << b;
    EXPECT_NE(b.find("gi_shfl12 = fmaxf(gi_shfl12, __shfl_down_sync(0xffffffffu, gi_shfl12, 1));\n"
                     "if (threadIdx.x == 0) cache[0] = gi_shfl12;\n}\n__syncthreads();\n"),
              std::string::npos)
        << b;
    // The barrier first: one before the warp reads what the last shared step wrote, none after
    // (the original has none after its last step either); the pragma before both loops.
    const std::string c = shfl_source(grammar, "shfl_k.cu_23=1");
    EXPECT_NE(c.find("if ((64) >= 32 && ((64) & ((64) - 1)) == 0 && blockDim.x % 32 == 0) {\n#pragma unroll\n"
                     "for (unsigned s = 64; s > 32; s >>= 1)"),
              std::string::npos)
        << c;
    EXPECT_NE(c.find("__syncthreads();\nif (tid < 32) {\nauto gi_shfl23 = m[tid];\ngi_shfl23 = max(gi_shfl23, m[tid + 32]);\n"),
              std::string::npos)
        << c;
    EXPECT_NE(c.find("if (tid == 0) m[0] = gi_shfl23;\n}\n} else {\n#pragma unroll\nfor (unsigned s = 64; s > 0; s >>= 1)"),
              std::string::npos)
        << c;
}

// Each kernel's reduction loop is its second line; the reason tree_reduction gives for it, and
// the grammar offers none of them.
TEST(WarpReduce, NotOfferedWhereThePremiseDoesNotHoldAndSaysWhy) {
    struct Refused {
        const char* kernel;
        const char* why;
    };
    const Refused refused[] = {
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "out[blockIdx.x * blockDim.x + tid] = sd[tid]; }\n",
         "the code after the loop uses sd other than as sd[0]"},
        // Inside another loop, the next trip may read what the warp left: the grammar refuses
        // nested loops, though the text around it alone would pass.
        {"__global__ void k(float* out, int rows) { __shared__ float sd[256]; unsigned tid = threadIdx.x;\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; __syncthreads(); }\n"
         "__global__ void k2(float* out, int rows) { __shared__ float sd[256]; unsigned tid = threadIdx.x;\n"
         "for (int r = 0; r < rows; ++r) { sd[tid] = r; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[r] = sd[0]; __syncthreads(); } }\n",
         ""},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; unsigned h = (tid + 64) / 2;\n"
         "for (unsigned s = h; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "its start h may differ between the threads of a block"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = 48; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "it starts at 48, not a power of two of at least 32"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "its body has no __syncthreads() after the step"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; out[s] = 0; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "its body is not 'if (tid < s) a[tid] += a[tid + s];' and __syncthreads()"},
        {"__global__ void k(float* sd) { unsigned tid = threadIdx.x;\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "}\n",
         "its array sd is not a __shared__ array the function declares before the loop"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.y; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "its thread index tid is not declared once as threadIdx.x before the loop"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] -= sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "its body is not 'if (tid < s) a[tid] += a[tid + s];' and __syncthreads()"},
        {"__global__ void k(short* out) { __shared__ short sd[256]; unsigned tid = threadIdx.x; sd[tid] = 1; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "its array sd is declared 'short', not an array of a type __shfl_down_sync takes"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; tid += 0; __syncthreads();\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = sd[0]; }\n",
         "the function writes its thread index tid"},
        {"__global__ void k(float* out) { extern __shared__ float sd[]; extern __shared__ float other[]; unsigned tid = threadIdx.x;\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = other[1]; }\n",
         "another extern __shared__ array shares sd's memory"},
        {"__global__ void k(float* out) { __shared__ float sd[256]; unsigned tid = threadIdx.x; float* p = sd;\n"
         "for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) { if (tid < s) sd[tid] += sd[tid + s]; __syncthreads(); }\n"
         "if (tid == 0) out[0] = p[1]; }\n",
         "the function uses sd other than as sd[...] (an alias or its address)"},
    };
    for (const Refused& r : refused) {
        const std::string text = r.kernel;
        const std::size_t open = text.find('{') + 1;
        const std::size_t loop = text.find('\n') + 1;
        const std::size_t loop_end = text.find('\n', loop);
        const std::size_t close = text.find("}\n", loop_end);
        std::string why;
        const auto reduction = tree_reduction(std::string_view(text).substr(open, loop - open),
                                              std::string_view(text).substr(loop, loop_end - loop),
                                              std::string_view(text).substr(loop_end, close - loop_end), why);
        EXPECT_EQ(why, r.why) << text;
        EXPECT_EQ(reduction.has_value(), std::string(r.why).empty());
        EXPECT_TRUE(shfl_genes_in(test::grammar_of(text)).size() == (std::string(r.why).empty() ? 1u : 0u)) << text;
    }
}

TEST(WarpReduce, AnEditThatBreaksThePremiseTurnsItOffAndSaysWhy) {
    const Grammar grammar = test::grammar_of(kShflSumKernel);
    const Rule* store = test::rule_with_text(grammar, "sdata[tid] = sum;");
    const Rule* result = test::rule_with_text(grammar, "out[blockIdx.x] = sdata[0];");
    ASSERT_TRUE(store && result);
    EXPECT_EQ(store->id, "_k.cu_8");
    // The partial sum stored again after the loop: the code after it no longer reads only sdata[0].
    const AppliedVariant stored = apply_genome(parse_genome("shfl_k.cu_10=1 <" + result->id + ">+<" + store->id + ">"), grammar);
    EXPECT_EQ(stored.source.find("__shfl_down_sync"), std::string::npos) << stored.source;
    ASSERT_EQ(stored.skipped_edits.size(), 1u);
    EXPECT_EQ(stored.skipped_edits[0],
              "shfl_k.cu_10=1 (not applied: the code after the loop uses sdata other than as sdata[0])");
    // The loop's barrier deleted.
    const AppliedVariant unsynced = apply_genome(parse_genome("shfl_k.cu_10=1 <_k.cu_13>"), grammar);
    ASSERT_EQ(unsynced.skipped_edits.size(), 1u);
    EXPECT_EQ(unsynced.skipped_edits[0], "shfl_k.cu_10=1 (not applied: its body has no __syncthreads() after the step)");
    // An edit before the loop that keeps the premise: applied, the edit kept.
    const AppliedVariant doubled = apply_genome(parse_genome("shfl_k.cu_10=1 <_k.cu_9>+<_k.cu_8>"), grammar);
    EXPECT_TRUE(doubled.skipped_edits.empty()) << doubled.skipped_edits.front();
    EXPECT_EQ(shfl_count(doubled.source, "sdata[tid] = sum;"), 2u) << doubled.source;
    EXPECT_EQ(shfl_count(doubled.source, "__shfl_down_sync"), 5u) << doubled.source;
}

TEST(WarpReduce, MinimisationDropsItLikeAnySetting) {
    const Grammar grammar = test::grammar_of(kShflSumKernel);
    const Genome genome = parse_genome("shfl_k.cu_10=1 <_k.cu_15>");
    EXPECT_TRUE(validate_genome(genome, grammar).empty());
    EXPECT_EQ(genome_items(genome).front(), "shfl_k.cu_10=1");
    EXPECT_EQ(genome_to_text(without_item(genome, 0)), "<_k.cu_15>");
    EXPECT_EQ(apply_genome(without_item(genome, 0), grammar).source.find("__shfl_down_sync"), std::string::npos);
    EXPECT_EQ(genome_to_text(canonical_genome(parse_genome("shfl_k.cu_10=0"), grammar)), "");
    EXPECT_FALSE(validate_genome(parse_genome("shfl_k.cu_10=2"), grammar).empty()) << "2 is not a value it offers";
}

TEST(WarpReduce, BothValuesCompileWithNvrtcAndUnderTheHangGuard) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const Grammar grammar = test::grammar_of(kShflSumKernel);
    for (const std::string value : {"0", "1"}) {
        const AppliedVariant variant = apply_genome(parse_genome("shfl_k.cu_10=" + value), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty());
        for (const std::string& source : {variant.source, guard_hangs(variant.source, "row_sum.cu").source}) {
            DeviceCompileRequest request;
            request.source = source;
            request.name = "row_sum.cu";
            request.arch = "sm_90";
            const DeviceCompileResult result = compile_with_nvrtc(request);
            EXPECT_TRUE(result.ok) << value << "\n" << result.log << "\n" << source;
        }
        DeviceCompileRequest request;
        request.source = variant.source;
        request.arch = "sm_90";
        request.ptx = true;
        const DeviceCompileResult ptx = compile_with_nvrtc(request);
        ASSERT_TRUE(ptx.ok) << ptx.log;
        EXPECT_EQ(shfl_count(ptx.ptx, "shfl.sync.down"), value == "1" ? 5u : 0u) << ptx.ptx;
    }
}

}  // namespace
}  // namespace gi
