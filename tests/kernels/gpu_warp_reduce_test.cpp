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
#include "../support/toolkit.hpp"
#include "process/process.hpp"
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
    const std::string root = GI_SOURCE_DIR;
    for (const int block : {64, 256, 1024, 32}) {
        SCOPED_TRACE("BLOCK_SIZE=" + std::to_string(block));
        const std::string binary = (folder.path() / ("driver_" + std::to_string(block))).string();
        ProcessOptions build_options;
        build_options.timeout = std::chrono::minutes(3);
        const ProcessResult built = run_process(
            {find_nvcc(), "-O3", "-std=c++17", "-arch=native", "-diag-suppress=177", "-DBLOCK_SIZE=" + std::to_string(block),
             "-I", root + "/kernels", "-I", root + "/gi-tool/src", (kRowNormsDir / "row_norms_driver.cu").string(),
             source.string(), (kRowNormsDir / "reference.cpp").string(), "-o", binary},
            build_options);
        ASSERT_TRUE(built.succeeded()) << built.out << built.err;
        // The gate case's odd sizes, the training size, and long rows.
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"--rows", "37", "--cols", "300", "--seed", "3"},
                 {"--rows", "32768", "--cols", "256"},
                 {"--rows", "1000", "--cols", "5000", "--seed", "7"}}) {
            std::vector<std::string> argv{binary};
            argv.insert(argv.end(), args.begin(), args.end());
            argv.insert(argv.end(), {"--reps", "3"});
            ProcessOptions run_options;
            run_options.timeout = std::chrono::minutes(1);
            const ProcessResult run = run_process(argv, run_options);
            EXPECT_TRUE(run.succeeded()) << run.out << run.err;
            EXPECT_NE(run.out.find("\nPASS\n"), std::string::npos) << run.out << run.err;
        }
    }
}

}  // namespace
}  // namespace gi
