// The shared-memory staging transformation (stage_<file>_<line>) on kernels/conv1d, written to need
// it: the variant gi-tool writes is built into the kernel's own driver by nvcc, and the driver
// checks every output against its CPU reference (PASS) at the gate case's size (one block, most of
// its threads past the end), the held-out's odd size and the training size, at the file's block
// size and at one larger than the tile (the loop then runs as written). The grammar part runs
// anywhere; the builds and runs skip without a GPU.
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

TEST(GpuSharedStage, Conv1dStagedPassesTheDriversCheck) {
    GrammarOptions options;
    options.functions = {"conv1d"};
    const Grammar grammar =
        build_grammar(read_source_file(std::filesystem::path(GI_SOURCE_DIR) / "kernels/conv1d/conv1d.cu"), options);
    const AppliedVariant variant = apply_genome(parse_genome("stage_conv1d.cu_20=1"), grammar);
    ASSERT_TRUE(variant.skipped_edits.empty()) << variant.skipped_edits.front();
    ASSERT_NE(variant.source.find("__shared__ float gi_stage20[(BLOCK_SIZE) + (RADIUS) - (-RADIUS)];"), std::string::npos)
        << variant.source;
    GI_REQUIRE_GPU();
    if (!test::have_nvcc()) GTEST_SKIP() << "no nvcc to build the driver";
    gpu_test::TempFolder folder;
    const std::filesystem::path file = folder.path() / "conv1d_stage.cu";
    std::ofstream(file) << variant.source;
    // The file's block size, a small tile and a large one.
    int build = 0;
    for (const std::vector<std::string>& defines :
         std::vector<std::vector<std::string>>{{}, {"BLOCK_SIZE=64"}, {"BLOCK_SIZE=1024"}}) {
        SCOPED_TRACE(defines.empty() ? "defaults" : defines[0]);
        const std::filesystem::path binary = folder.path() / ("driver" + std::to_string(++build));
        const ProcessResult built = test::build_corpus_driver("conv1d", file, binary, defines);
        ASSERT_TRUE(built.succeeded()) << built.out << built.err;
        for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
                 {"--n", "1000", "--seed", "3", "--reps", "3"},
                 {"--n", "1000003", "--seed", "7", "--reps", "3"},
                 {"--n", "4194304", "--reps", "3"}}) {
            const ProcessResult run = test::run_corpus_driver(binary, args);
            EXPECT_TRUE(run.succeeded()) << run.out << run.err;
            EXPECT_NE(run.out.find("\nPASS\n"), std::string::npos) << run.out << run.err;
        }
    }
}

}  // namespace
}  // namespace gi
