// Issue 40: a target compiling several architectures builds them in one translation unit whose host
// pass sees one variant's #defines, so cache apply refuses a variant that changes a #define host code
// of the file reads. Evolution for such a target keeps those #defines at the file's value: they are
// no tuning parameter and no mutation or crossover changes them (gi-tool evolve
// --target-architectures N, which the CMake module passes).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "grammar/build_grammar.hpp"
#include "grammar/macro_reach.hpp"
#include "search/operators.hpp"
#include "tune/tune.hpp"
#include "../support/gi_tool_run.hpp"

namespace gi {
namespace {

// BLOCK sizes the host's launch; ROWS only the kernel; FAST switches code in the kernel and, at file
// level, the host's declarations; WIDTH is read by host code through HALF.
const char* const kHostReadKernel =
    "#define BLOCK 64\n"                                                     // 1
    "#define ROWS 2\n"                                                       // 2
    "#define FAST 0\n"                                                       // 3
    "#define WIDTH 8\n"                                                      // 4
    "#define HALF (WIDTH / 2)\n"                                             // 5
    "__global__ void scale(float* a, int n) {\n"                             // 6
    "    int i = blockIdx.x * BLOCK + threadIdx.x;\n"                        // 7
    "#if FAST\n"                                                             // 8
    "    a[i] *= 3.0f;\n"                                                    // 9
    "#endif\n"                                                               // 10
    "    for (int r = 0; r < ROWS; ++r) if (i < n) a[i] *= 2.0f + WIDTH;\n"  // 11
    "}\n"                                                                    // 12
    "#if FAST\n"                                                             // 13
    "static const int mode = 1;\n"                                           // 14
    "#endif\n"                                                               // 15
    "void launch(float* a, int n) {\n"                                       // 16
    "    scale<<<(n + BLOCK - 1) / BLOCK, BLOCK, HALF>>>(a, n);\n"           // 17
    "}\n";                                                                   // 18

Grammar host_read_grammar() {
    GrammarOptions options;
    options.functions = {"scale"};
    options.params = {parse_param_declaration("BLOCK=32,64,128", "--param"), parse_param_declaration("ROWS=1..4", "--param"),
                      parse_param_declaration("WIDTH=8,16", "--param")};
    return build_grammar(make_source_file("k.cu", kHostReadKernel), options);
}

std::vector<std::string> gene_names(const Grammar& grammar, const std::vector<int>& indexes) {
    std::vector<std::string> names;
    for (int i : indexes) names.push_back(grammar.genes[static_cast<std::size_t>(i)].name);
    return names;
}

TEST(HostReadGenes, NamesTheDefineGenesHostCodeReadsWithTheFirstLineAndValue) {
    const Grammar grammar = host_read_grammar();
    ASSERT_NE(grammar.find_gene("FAST"), nullptr);  // an #if switch inside the kernel: a guard gene
    const std::vector<HostReadGene> read = host_read_genes(grammar, make_source_file("k.cu", kHostReadKernel));
    std::vector<std::tuple<std::string, std::string, int>> seen;
    for (const HostReadGene& gene : read) seen.emplace_back(gene.name, gene.value, gene.line);
    EXPECT_EQ(seen, (std::vector<std::tuple<std::string, std::string, int>>{
                        {"BLOCK", "64", 17}, {"WIDTH", "8", 17}, {"FAST", "0", 13}}));
}

TEST(HostReadGenes, KeptAtTheirDefaultTheyAreNeitherTunedNorMutated) {
    const Grammar grammar = host_read_grammar();
    const Grammar kept = with_genes_kept_at_default(grammar, host_read_genes(grammar, make_source_file("k.cu", kHostReadKernel)));
    // Without the option every declared parameter is swept and mutated; with it only ROWS.
    EXPECT_EQ(gene_names(grammar, tunable_genes(grammar)), (std::vector<std::string>{"BLOCK", "ROWS", "WIDTH"}));
    EXPECT_EQ(gene_names(kept, tunable_genes(kept)), (std::vector<std::string>{"ROWS"}));
    for (const std::string& name : gene_names(kept, mutable_genes(kept)))
        EXPECT_TRUE(name != "BLOCK" && name != "WIDTH" && name != "FAST") << name;
    for (const char* name : {"BLOCK", "WIDTH", "FAST"}) {
        const std::vector<std::string> all = gene_names(grammar, mutable_genes(grammar));
        EXPECT_NE(std::find(all.begin(), all.end(), name), all.end()) << name;
    }
    EXPECT_EQ(kept.find_gene("BLOCK")->values, (std::vector<std::string>{"64"}));
    // The genes stay in the grammar (genomes and rule ids read the same), only their choice is gone.
    EXPECT_EQ(kept.genes.size(), grammar.genes.size());
    Rng rng(11);
    bool sampled = false;
    double space = 0;
    const std::vector<Genome> points = tune_points(Genome{}, kept, 256, rng, sampled, space);
    EXPECT_EQ(space, 4.0);
    for (const Genome& point : points)
        for (const GeneSetting& setting : point.settings) EXPECT_EQ(setting.name, "ROWS") << setting.name;
    for (int i = 0; i < 200; ++i) {
        const std::optional<Genome> child = mutate_gene(Genome{}, kept, rng);
        ASSERT_TRUE(child.has_value());
        for (const GeneSetting& setting : child->settings)
            EXPECT_TRUE(setting.name != "BLOCK" && setting.name != "WIDTH" && setting.name != "FAST") << setting.name;
    }
}

// The command: `--target-architectures 2` says once which #defines it keeps and sweeps only the
// others; without it (one architecture) every parameter is swept, as before.
TEST(HostReadGenes, EvolveForSeveralArchitecturesSaysWhatItKeepsAndSweepsTheRest) {
    const std::filesystem::path dir = test::fresh_temp_dir("gi-host-read-genes");
    std::filesystem::create_directories(dir);
    const std::filesystem::path kernel = dir / "k.cu";
    std::ofstream(kernel) << kHostReadKernel;
    const std::string registration = kernel.string() + " --function scale --param BLOCK=32,64,128 --param ROWS=1..4 "
                                     "--param WIDTH=8,16 --evaluator fake --generations 0 --seed 3";
    const test::ToolRun several = test::run_gi_tool("evolve " + registration + " --target-architectures 2 --out " +
                                                    (dir / "several").string());
    ASSERT_EQ(several.status, 0) << several.output;
    for (const char* line : {"note: BLOCK is read by host code at k.cu:17 and the target compiles 2 architectures: kept at 64\n",
                             "note: WIDTH is read by host code at k.cu:17 and the target compiles 2 architectures: kept at 8\n",
                             "note: FAST is read by host code at k.cu:13 and the target compiles 2 architectures: kept at 0\n"}) {
        const std::size_t at = several.output.find(line);
        EXPECT_NE(at, std::string::npos) << line << " missing from:\n" << several.output;
        EXPECT_EQ(several.output.find(line, at + 1), std::string::npos) << "said more than once: " << line;
    }
    EXPECT_NE(several.output.find("pre-tune: swept all 3 of 4 points"), std::string::npos) << several.output;
    const test::ToolRun one = test::run_gi_tool("evolve " + registration + " --out " + (dir / "one").string());
    ASSERT_EQ(one.status, 0) << one.output;
    EXPECT_EQ(one.output.find("read by host code"), std::string::npos) << one.output;
    EXPECT_NE(one.output.find("pre-tune: swept all 23 of 24 points"), std::string::npos) << one.output;
}

}  // namespace
}  // namespace gi
