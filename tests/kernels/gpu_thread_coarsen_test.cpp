// The thread-coarsening transformation (coarsen_<file>_<line>) on the corpus kernels it is offered
// for, kernels/pcm_to_float (written to need it) and kernels/fir_decimate: the variant gi-tool writes with 2 and 4 blocks' work a block (its
// fir_grid() divides the grid the driver launches) is built into the kernel's own driver by nvcc,
// and the driver checks every output against its CPU reference (PASS), at the gate case's odd
// sizes (a last block partly past the end) and the training size. pcm_to_float's pcm_grid alike. The grammar part runs anywhere;
// the builds and runs skip without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../grammar/grammar_test_util.hpp"
#include "../support/corpus_driver.hpp"
#include "../support/gpu_fixture.hpp"
#include "../support/toolkit.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

TEST(GpuThreadCoarsen, FirDecimateCoarsenedPassesTheDriversCheck) {
    GrammarOptions options;
    options.functions = {"fir_decimate"};
    const Grammar grammar = build_grammar(
        read_source_file(std::filesystem::path(GI_SOURCE_DIR) / "kernels/fir_decimate/fir_decimate.cu"), options);
    std::vector<std::pair<std::string, std::string>> variants;  // factor, source
    for (const std::string factor : {"2", "4"}) {
        const AppliedVariant variant = apply_genome(parse_genome("coarsen_fir_decimate.cu_19=" + factor), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
        ASSERT_NE(variant.source.find("+ " + factor + " - 1) / " + factor + ")"), std::string::npos)
            << "the grid function is not divided: " << variant.source;
        variants.emplace_back(factor, variant.source);
    }
    GI_REQUIRE_GPU();
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc to build the driver";
    gpu_test::TempFolder folder;
    for (const auto& [factor, source] : variants) {
        SCOPED_TRACE("coarsen_fir_decimate.cu_19=" + factor);
        const std::filesystem::path file = folder.path() / ("fir_decimate_" + factor + ".cu");
        std::ofstream(file) << source;
        const std::filesystem::path binary = folder.path() / ("driver_" + factor);
        const ProcessResult built = test::build_corpus_driver("fir_decimate", file, binary);
        ASSERT_TRUE(built.succeeded()) << built.out << built.err;
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"--outputs", "1000", "--decimation", "3", "--taps", "37", "--phases", "3", "--seed", "3", "--reps", "3"},
                 {"--outputs", "1048576", "--decimation", "4", "--taps", "512", "--phases", "4", "--reps", "3"}}) {
            const ProcessResult run = test::run_corpus_driver(binary, args);
            EXPECT_TRUE(run.succeeded()) << run.out << run.err;
            EXPECT_NE(run.out.find("\nPASS\n"), std::string::npos) << run.out << run.err;
        }
    }
}

// pcm_to_float, written to need it: its own pcm_grid divided, at the gate case's size (one
// coarsened block, mostly past the end), the held-out's odd count and the training size.
TEST(GpuThreadCoarsen, PcmToFloatCoarsenedPassesTheDriversCheck) {
    GrammarOptions options;
    options.functions = {"pcm_to_float"};
    const Grammar grammar = build_grammar(
        read_source_file(std::filesystem::path(GI_SOURCE_DIR) / "kernels/pcm_to_float/pcm_to_float.cu"), options);
    std::vector<std::pair<std::string, std::string>> variants;  // factor, source
    for (const std::string factor : {"2", "4"}) {
        const AppliedVariant variant = apply_genome(parse_genome("coarsen_pcm_to_float.cu_15=" + factor), grammar);
        ASSERT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
        variants.emplace_back(factor, variant.source);
    }
    GI_REQUIRE_GPU();
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc to build the driver";
    gpu_test::TempFolder folder;
    for (const auto& [factor, source] : variants) {
        SCOPED_TRACE("coarsen_pcm_to_float.cu_15=" + factor);
        const std::filesystem::path file = folder.path() / ("pcm_to_float_" + factor + ".cu");
        std::ofstream(file) << source;
        const std::filesystem::path binary = folder.path() / ("driver_" + factor);
        const ProcessResult built = test::build_corpus_driver("pcm_to_float", file, binary);
        ASSERT_TRUE(built.succeeded()) << built.out << built.err;
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"--count", "1000", "--seed", "3", "--reps", "3"},
                 {"--count", "1000003", "--seed", "7", "--reps", "3"},
                 {"--count", "8388608", "--reps", "3"}}) {
            const ProcessResult run = test::run_corpus_driver(binary, args);
            EXPECT_TRUE(run.succeeded()) << run.out << run.err;
            EXPECT_NE(run.out.find("\nPASS\n"), std::string::npos) << run.out << run.err;
        }
    }
}

}  // namespace
}  // namespace gi
