// The vector-load transformation (issue 46 item 4, vec_<file>_<line>=1|2|4): the text it writes on
// a small kernel, exactly; where it is offered and where not; that it composes with edits and is
// skipped, and says why, where an edit breaks its premise; that minimisation drops it like any
// setting; and, with NVRTC, that every value compiles and how many sites the project's kernels
// hold.
#include <gtest/gtest.h>

#include <iostream>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "registered_kernels.hpp"
#include "variant/apply.hpp"
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"

namespace gi {
namespace {

const char* const kVecDotKernel =
    "__global__ void dot(const float* a, const float* b, float* out, int n) {\n"  // 1
    "    float acc = 0.0f;\n"                                                      // 2
    "    float scale = 0.5f;\n"                                                    // 3
    "    for (int j = 0; j < n; ++j) {\n"                                          // 4
    "        acc += a[j] * b[j];\n"                                                // 5
    "    }\n"                                                                      // 6
    "    acc *= scale;\n"                                                          // 7
    "    out[blockIdx.x] = acc;\n"                                                 // 8
    "}\n";

// The variant's source without the line the variant stage puts first.
std::string vec_source(const Grammar& grammar, const std::string& genome) {
    const std::string source = apply_genome(parse_genome(genome), grammar).source;
    return source.substr(source.find('\n') + 1);
}

std::size_t vec_count(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++count;
    return count;
}

TEST(VectorLoad, TheGrammarOffersOneGeneForALoopReadingBothArrays) {
    const Grammar grammar = test::grammar_of(kVecDotKernel);
    const Gene* vec = grammar.find_gene("vec_k.cu_4");
    ASSERT_TRUE(vec);
    EXPECT_EQ(vec->kind, GeneKind::Vectorize);
    EXPECT_TRUE(is_transform_gene(vec->kind));
    EXPECT_EQ(vec->values, (std::vector<std::string>{"1", "2", "4"}));
    EXPECT_EQ(vec->default_value, "1");
    EXPECT_TRUE(vec->numeric);
    ASSERT_EQ(vec->site.reads.size(), 2u);
    EXPECT_EQ(vec->site.reads[0].pointer, "a");
    EXPECT_EQ(vec->site.reads[1].pointer, "b");
    EXPECT_FALSE(grammar.find_gene("vec_k.cu_4.2"));
    test::expect_reproduces(grammar, kVecDotKernel);
}

TEST(VectorLoad, LoadsBothArraysAsFloat2WhereAlignedAndRunsTheBodyAsWrittenElsewhere) {
    const Grammar grammar = test::grammar_of(kVecDotKernel);
    EXPECT_EQ(vec_source(grammar, "vec_k.cu_4=2"),
              "__global__ void dot(const float* a, const float* b, float* out, int n) {\n"
              "    float acc = 0.0f;\n"
              "    float scale = 0.5f;\n"
              "    for (int j = 0; j < n; ++j) { if (j + 1 < (n)"
              " && reinterpret_cast<unsigned long long>(a + j) % 8 == 0"
              " && reinterpret_cast<unsigned long long>(b + j) % 8 == 0) {\n"
              "const float2 gi_vec4_a = *reinterpret_cast<const float2*>(a + j);\n"
              "const float2 gi_vec4_b = *reinterpret_cast<const float2*>(b + j);\n"
              "{\n"
              "        acc += gi_vec4_a.x * gi_vec4_b.x;\n"
              "    } ++j;\n"
              "{\n"
              "        acc += gi_vec4_a.y * gi_vec4_b.y;\n"
              "    }\n"
              "} else {\n"
              "        acc += a[j] * b[j];\n"
              "    } }\n"
              "    acc *= scale;\n"
              "    out[blockIdx.x] = acc;\n"
              "}\n");
    const std::string four = vec_source(grammar, "vec_k.cu_4=4");
    EXPECT_NE(four.find("if (j + 3 < (n) && reinterpret_cast<unsigned long long>(a + j) % 16 == 0"), std::string::npos)
        << four;
    EXPECT_NE(four.find("const float4 gi_vec4_b = *reinterpret_cast<const float4*>(b + j);"), std::string::npos);
    EXPECT_EQ(vec_count(four, "++j;"), 3u);
    EXPECT_NE(four.find("acc += gi_vec4_a.w * gi_vec4_b.w;"), std::string::npos);
}

TEST(VectorLoad, OfferedOnlyWhereThePremiseHolds) {
    const Grammar grammar = test::grammar_of(
        "__global__ void k(const float* x, float* y, const float* __restrict__ r, const double* d, int n, int s) {\n"  // 1
        "    float t = 0;\n"                                                          // 2
        "    for (int i = 0; i < n; i += 2) t += x[i];\n"                             // 3 step 2
        "    for (int i = 0; i < n; ++i) t += x[i + 1];\n"                            // 4 not x[i]
        "    for (int i = 0; i < n; ++i) y[i] = x[i];\n"                              // 5 a store, x may alias y
        "    for (int i = 0; i < n; ++i) y[i] = r[i];\n"                              // 6 r is __restrict__
        "    for (int i = 0; i < n; ++i) t += d[i];\n"                                // 7 not float
        "    for (int i = 0; i < n; ++i) { t += x[i]; __syncthreads(); }\n"           // 8 a call
        "    for (int i = 0; i < n; ++i) { t += x[i]; if (t > 1) break; }\n"          // 9 leaves the loop
        "    for (int i = 0; i < n; ++i) t += x[i] * x[s];\n"                         // 10 another index
        "    for (int i = s; i <= n; i++) t += x[i];\n"                               // 11 offered
        "    y[0] = t;\n"
        "}\n");
    std::vector<std::string> offered;
    for (const Gene& gene : grammar.genes)
        if (gene.kind == GeneKind::Vectorize) offered.push_back(gene.name);
    EXPECT_EQ(offered, (std::vector<std::string>{"vec_k.cu_6", "vec_k.cu_11"}));
    const Gene* restricted = grammar.find_gene("vec_k.cu_6");
    ASSERT_TRUE(restricted);
    ASSERT_EQ(restricted->site.reads.size(), 1u);
    EXPECT_TRUE(restricted->site.reads[0].restricted);
    EXPECT_NE(vec_source(grammar, "vec_k.cu_11=2").find("if (i + 1 <= (n) && "), std::string::npos);
}

TEST(VectorLoad, TheVectorCopiesHoldTheEditedBody) {
    const Grammar grammar = test::grammar_of(kVecDotKernel);
    const Rule* scale = test::rule_with_text(grammar, "acc *= scale;");
    ASSERT_TRUE(scale);
    const Genome genome = parse_genome("vec_k.cu_4=4 <_k.cu_5>+<" + scale->id + ">");
    EXPECT_TRUE(validate_genome(genome, grammar).empty());
    const AppliedVariant variant = apply_genome(genome, grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    // Four vector copies and the scalar body each scale, and the statement after the loop too.
    EXPECT_EQ(vec_count(variant.source, "acc *= scale;"), 6u) << variant.source;
    EXPECT_EQ(vec_count(variant.source, "gi_vec4_a.z * gi_vec4_b.z"), 1u) << variant.source;
}

TEST(VectorLoad, AnEditThatBreaksThePremiseTurnsItOffAndSaysWhy) {
    const Grammar grammar = test::grammar_of(kVecDotKernel);
    const Rule* store = test::rule_with_text(grammar, "out[blockIdx.x] = acc;");
    ASSERT_TRUE(store);
    // The store copied into the loop: out may alias a or b, read ahead by the vector load.
    const AppliedVariant stored = apply_genome(parse_genome("vec_k.cu_4=4 <_k.cu_5>+<" + store->id + ">"), grammar);
    EXPECT_EQ(stored.source.find("float4"), std::string::npos) << stored.source;
    ASSERT_EQ(stored.skipped_edits.size(), 1u);
    EXPECT_EQ(stored.skipped_edits[0],
              "vec_k.cu_4=4 (not applied: its body stores to memory that a pointer it loads from may alias (not "
              "__restrict__))");
    // The read deleted: nothing left to load.
    const AppliedVariant deleted = apply_genome(parse_genome("vec_k.cu_4=2 <_k.cu_5>"), grammar);
    ASSERT_EQ(deleted.skipped_edits.size(), 1u);
    EXPECT_EQ(deleted.skipped_edits[0], "vec_k.cu_4=2 (not applied: its body no longer reads a[j])");
    // Unrolled and vectorised at once: the first in the grammar's order takes the loop.
    const AppliedVariant both = apply_genome(parse_genome("vec_k.cu_4=2 unroll_k.cu_4=2"), grammar);
    ASSERT_EQ(both.skipped_edits.size(), 1u);
    EXPECT_EQ(both.skipped_edits[0], "vec_k.cu_4=2 (not applied: another transformation rewrote the loop)");
}

TEST(VectorLoad, MinimisationDropsItLikeAnySetting) {
    const Grammar grammar = test::grammar_of(kVecDotKernel);
    const Genome genome = parse_genome("vec_k.cu_4=4 <_k.cu_7>");
    EXPECT_EQ(genome_items(genome).front(), "vec_k.cu_4=4");
    EXPECT_EQ(genome_to_text(without_item(genome, 0)), "<_k.cu_7>");
    EXPECT_EQ(apply_genome(without_item(genome, 0), grammar).source.find("float4"), std::string::npos);
    EXPECT_EQ(genome_to_text(canonical_genome(parse_genome("vec_k.cu_4=1"), grammar)), "");
    EXPECT_FALSE(validate_genome(parse_genome("vec_k.cu_4=8"), grammar).empty()) << "8 is not a value it offers";
}

TEST(VectorLoad, EveryValueCompilesWithNvrtcAndUnderTheHangGuard) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const Grammar grammar = test::grammar_of(kVecDotKernel);
    for (const std::string value : {"2", "4"}) {
        Genome genome;
        set_gene(genome, "vec_k.cu_4", value);
        const AppliedVariant variant = apply_genome(genome, grammar);
        ASSERT_TRUE(variant.skipped_edits.empty());
        for (const std::string& source : {variant.source, guard_hangs(variant.source, "dot.cu").source}) {
            DeviceCompileRequest request;
            request.source = source;
            request.name = "dot.cu";
            const DeviceCompileResult result = compile_with_nvrtc(request);
            EXPECT_TRUE(result.ok) << value << "\n" << result.log << "\n" << source;
        }
        // The vector path is one vector load of each array, not a scalar load a lane.
        DeviceCompileRequest request;
        request.source = variant.source;
        request.ptx = true;
        const DeviceCompileResult ptx = compile_with_nvrtc(request);
        ASSERT_TRUE(ptx.ok) << ptx.log;
        const std::string vector_load = "ld.global.v" + value + ".f32";
        EXPECT_EQ(vec_count(ptx.ptx, vector_load), 2u) << ptx.ptx;
    }
}

// The sites the project's kernels hold, and what share of their settings compile (printed for the
// record, as the other transformations' rate is).
TEST(VectorLoad, TheProjectsKernelsSitesCompile) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    int sites = 0;
    int settings = 0;
    int compiled = 0;
    for (const test::KernelFile& k : test::registered_kernels()) {
        GrammarOptions options;
        options.functions = {k.function};
        const Grammar grammar = build_grammar(read_source_file(k.path), options);
        for (const Gene& gene : grammar.genes) {
            if (gene.kind != GeneKind::Vectorize) continue;
            ++sites;
            for (const std::string& value : {"2", "4"}) {
                Genome genome;
                set_gene(genome, gene.name, value);
                const AppliedVariant variant = apply_genome(genome, grammar);
                EXPECT_TRUE(variant.skipped_edits.empty()) << k.path.filename() << ": " << gene.name;
                DeviceCompileRequest request;
                request.source = variant.source;
                request.name = k.path.filename().string();
                request.include_dirs = {k.path.parent_path().string()};
                request.options = test::options_with_live_loops(k);
                const bool ok = compile_with_nvrtc(request).ok;
                ++settings;
                if (ok) ++compiled;
                std::cout << "  " << k.path.filename().string() << " " << gene.name << "=" << value
                          << (ok ? " compiles" : " does not compile") << "\n";
            }
        }
    }
    std::cout << "vector-load sites in the project's kernels: " << sites << "; " << compiled << " of " << settings
              << " settings compile\n";
    EXPECT_EQ(compiled, settings);
}

}  // namespace
}  // namespace gi
