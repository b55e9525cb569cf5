// Transformation genes (issue 46) compiled with NVRTC for sm_90, as the cuda evaluator compiles
// variants: every value of every transformation of a small kernel, and the share of those offered
// on the project's kernels (kernels/*/registration.txt) that compile, each value alone. Skipped
// without NVRTC.
#include <gtest/gtest.h>

#include <future>
#include <iostream>

#include "../grammar/grammar_test_util.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "registered_kernels.hpp"
#include "variant/apply.hpp"
#include "variant/hang_guard.hpp"
#include "variant/loop_guard.hpp"

namespace gi {
namespace {

struct TransformCompile {
    std::string genome;
    bool applied = false;  // the setting was not skipped
    DeviceCompileResult result;
};

std::vector<TransformCompile> compile_each_transform(const Grammar& grammar, const std::string& name,
                                                     const std::vector<std::string>& include_dirs,
                                                     const std::vector<std::string>& options) {
    std::vector<std::future<TransformCompile>> running;
    std::vector<TransformCompile> out;
    auto collect = [&] {
        for (auto& f : running) out.push_back(f.get());
        running.clear();
    };
    for (const Gene& gene : grammar.genes) {
        if (!is_transform_gene(gene.kind)) continue;
        for (const std::string& value : gene.values) {
            if (value == gene.default_value) continue;
            Genome genome;
            set_gene(genome, gene.name, value);
            const AppliedVariant variant = apply_genome(genome, grammar);
            DeviceCompileRequest request;
            request.source = variant.source;
            request.name = name;
            request.include_dirs = include_dirs;
            request.options = options;
            const bool applied = variant.skipped_edits.empty();
            running.push_back(std::async(std::launch::async, [request, applied, text = genome_to_text(genome)] {
                return TransformCompile{text, applied, compile_with_nvrtc(request)};
            }));
            if (running.size() == 2) collect();  // two cores
        }
    }
    collect();
    return out;
}

TEST(TransformKernels, EveryValueOfASmallKernelsTransformationsCompiles) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    const Grammar grammar = test::grammar_of(
        "__global__ void dot(const float* a, float* out, int n, int m) {\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "    if (i >= n) return;\n"
        "    float acc = 0;\n"
        "    #pragma unroll 1\n"
        "    for (int j = 0; j < m; ++j) {\n"
        "        const float w = a[i] * 2.0f;\n"
        "        acc += w * a[j];\n"
        "    }\n"
        "    for (int s = threadIdx.x; s < m; s += blockDim.x) out[s] += acc;\n"
        "    if (i < m) { out[i] = acc; }\n"
        "}\n");
    const std::vector<TransformCompile> compiled = compile_each_transform(grammar, "dot.cu", {}, {});
    EXPECT_EQ(compiled.size(), 3u + 3u + 1u + 1u + 1u);  // two unrolls, a hoist, two unguards
    for (const TransformCompile& c : compiled) {
        EXPECT_TRUE(c.applied) << c.genome;
        EXPECT_TRUE(c.result.ok) << c.genome << "\n" << c.result.log;
    }
    // And as the evaluator's check runs build them, with every loop and barrier guarded: the
    // guard finds the unrolled copies' loops and the text still compiles.
    for (const Gene& gene : grammar.genes) {
        if (gene.kind != GeneKind::Unroll) continue;
        Genome genome;
        set_gene(genome, gene.name, "4");
        const LoopGuardResult guarded = guard_hangs(apply_genome(genome, grammar).source, "dot.cu");
        EXPECT_EQ(guarded.guarded, 2) << guarded.source;
        EXPECT_TRUE(guarded.unguarded.empty());
        DeviceCompileRequest request;
        request.source = guarded.source;
        const DeviceCompileResult result = compile_with_nvrtc(request);
        EXPECT_TRUE(result.ok) << gene.name << "\n" << result.log;
    }
}

// The compile rate over the project's kernels: what share of the offered transformations compile.
// Each that does not is a site the grammar offers for nothing; the rate is printed for the record.
TEST(TransformKernels, MostOfferedTransformationsOfTheProjectsKernelsCompile) {
    if (!nvrtc_available()) GTEST_SKIP() << "gi-tool was built without NVRTC (no CUDA toolkit)";
    int offered = 0;
    int compiled = 0;
    int kernels_with_sites = 0;
    for (const test::KernelFile& k : test::registered_kernels()) {
        GrammarOptions options;
        options.functions = {k.function};
        const Grammar grammar = build_grammar(read_source_file(k.path), options);
        const std::vector<TransformCompile> results = compile_each_transform(
            grammar, k.path.filename().string(), {k.path.parent_path().string()}, test::options_with_live_loops(k));
        if (!results.empty()) ++kernels_with_sites;
        int ok = 0;
        for (const TransformCompile& c : results) {
            EXPECT_TRUE(c.applied) << k.path.filename() << ": " << c.genome;
            if (c.result.ok) ++ok;
            else
                std::cout << "  does not compile: " << k.path.filename().string() << " " << c.genome << "\n";
        }
        std::cout << k.path.filename().string() << ": " << ok << " of " << results.size()
                  << " transformation settings compile\n";
        offered += static_cast<int>(results.size());
        compiled += ok;
    }
    std::cout << "compile rate: " << compiled << " of " << offered << "\n";
    EXPECT_GE(kernels_with_sites, 5);
    ASSERT_GT(offered, 0);
    EXPECT_GE(static_cast<double>(compiled) / offered, 0.9);
}

}  // namespace
}  // namespace gi
