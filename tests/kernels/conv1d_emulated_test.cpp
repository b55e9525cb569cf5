// kernels/conv1d and its variant with the signal staged through shared memory on the CPU emulator,
// at 256 and 32 threads a block, threads in forward and reverse order, on signals shorter than a
// block, that end inside one and that fill several: every output is the original's bit for bit
// (the same products added in the same order, the tile holding the same floats), and within the
// driver's tolerance of the reference. Launched with a block larger than the tile, the variant
// runs its loop as written, also bit for bit. The variant file is what gi-tool writes today,
// checked first.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>

#include "../grammar/grammar_test_util.hpp"
#include "conv1d/reference.hpp"
#include "emulator/corpus_kernels.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

TEST(Conv1dEmulated, TheEmulatedStagedVariantIsWhatGiToolWrites) {
    GrammarOptions options;
    options.functions = {"conv1d"};
    const Grammar grammar =
        build_grammar(read_source_file(std::filesystem::path(GI_SOURCE_DIR) / "kernels/conv1d/conv1d.cu"), options);
    const AppliedVariant variant = apply_genome(parse_genome("stage_conv1d.cu_20=1"), grammar);
    EXPECT_EQ(variant.source, read_source_file(std::filesystem::path(GI_TEST_DATA_DIR) / "shared_stage/conv1d_stage.cu").text)
        << "regenerate it: gi-tool apply kernels/conv1d/conv1d.cu --function conv1d --genome stage_conv1d.cu_20=1 "
           "--out tests/data/shared_stage/conv1d_stage.cu";
}

TEST(Conv1dEmulated, TheStagedOutputsAreTheOriginalsBitForBit) {
    std::map<std::string, const emu::Conv1dConfig*> originals;  // by settings
    for (const emu::Conv1dConfig& c : emu::conv1d_configs())
        if (c.name.rfind("conv1d ", 0) == 0) originals[c.name.substr(7)] = &c;
    int compared = 0;
    for (const emu::Conv1dConfig& variant : emu::conv1d_configs()) {
        if (variant.name.rfind("conv1d_stage ", 0) != 0) continue;
        const std::string settings = variant.name.substr(13);
        SCOPED_TRACE(settings);
        ASSERT_TRUE(originals.count(settings));
        for (const int n : {5, 37, 1000, 1100}) {
            SCOPED_TRACE(n);
            const conv1d::ConvProblem problem = conv1d::make_conv_problem(n, 13);
            const std::vector<double> reference = conv1d::conv1d_reference(problem);
            // The file's block, and one larger than any tile (the loop as written).
            for (const int block : {0, 512}) {
                for (const emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                    const std::vector<float> original = originals[settings]->run(problem, block, order);
                    const std::vector<float> staged = variant.run(problem, block, order);
                    ASSERT_EQ(staged.size(), original.size());
                    EXPECT_EQ(std::memcmp(staged.data(), original.data(), staged.size() * sizeof(float)), 0);
                    for (int k = 0; k < n; ++k)
                        ASSERT_NEAR(staged[static_cast<std::size_t>(k)], reference[static_cast<std::size_t>(k)], 1e-5) << k;
                    ++compared;
                }
            }
        }
    }
    EXPECT_EQ(compared, 2 * 4 * 2 * 2) << "two configurations, four sizes, two blocks, two orders";
}

}  // namespace
}  // namespace gi
