// The warp-shuffle transformation (shfl_<file>_<line>) on the corpus kernel written to need it,
// kernels/row_norms: the variant gi-tool writes with the gene on is built into the kernel's own
// driver by nvcc, as a user's build compiles it, and the driver checks every row's norm against
// its CPU reference (PASS). At 64, 256 and 1024 threads a block the warp finishes the reduction
// (none, two and four shared-memory steps before it); at 32 the start is 16 and the guard runs
// the loop as written. The grammar part runs anywhere; the builds and runs skip without a GPU.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../grammar/grammar_test_util.hpp"
#include "../support/gpu_fixture.hpp"
#include "../support/corpus_driver.hpp"
#include "../support/toolkit.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

const std::filesystem::path kRowNormsDir = std::filesystem::path(GI_SOURCE_DIR) / "kernels" / "row_norms";

std::string row_norms_variant(const std::string& genome) {
    GrammarOptions options;
    options.functions = {"row_norms"};
    const Grammar grammar = build_grammar(read_source_file(kRowNormsDir / "row_norms.cu"), options);
    const AppliedVariant variant = apply_genome(parse_genome(genome), grammar);
    EXPECT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    return variant.source;
}

TEST(GpuWarpReduce, RowNormsWithTheWarpsReductionPassTheDriversCheck) {
    const std::string gene = "shfl_row_norms.cu_30";
    const std::string variant = row_norms_variant(gene + "=1");
    ASSERT_NE(variant.find("__shfl_down_sync"), std::string::npos) << "the corpus kernel's site moved: " << variant;
    GI_REQUIRE_GPU();
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc to build the driver";
    gpu_test::TempFolder folder;
    const std::filesystem::path source = folder.path() / "row_norms.cu";
    std::ofstream(source) << variant;
    for (const int block : {64, 256, 1024, 32}) {
        SCOPED_TRACE("BLOCK_SIZE=" + std::to_string(block));
        const std::filesystem::path binary = folder.path() / ("driver_" + std::to_string(block));
        const ProcessResult built = test::build_corpus_driver("row_norms", source, binary, {"BLOCK_SIZE=" + std::to_string(block)});
        ASSERT_TRUE(built.succeeded()) << built.out << built.err;
        // The gate case's odd sizes, the training size, and long rows.
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"--rows", "37", "--cols", "300", "--seed", "3", "--reps", "3"},
                 {"--rows", "32768", "--cols", "256", "--reps", "3"},
                 {"--rows", "1000", "--cols", "5000", "--seed", "7", "--reps", "3"}}) {
            const ProcessResult run = test::run_corpus_driver(binary, args);
            EXPECT_TRUE(run.succeeded()) << run.out << run.err;
            EXPECT_NE(run.out.find("\nPASS\n"), std::string::npos) << run.out << run.err;
        }
    }
}

}  // namespace
}  // namespace gi
