// kernels/row_norms and its variant with the warp-shuffle transformation, run on the CPU emulator
// (tests/kernels/emulator, whose __shfl_down_sync exchanges through slots between two
// __syncwarp()s) at 32, 64, 256 and 1024 threads a block, threads in forward and reverse order:
// the variant's norms are the original's bit for bit (lane t adds what thread t added), and both
// are the reference's. The variant file is what gi-tool writes today, checked first.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "../grammar/grammar_test_util.hpp"
#include "emulator/corpus_kernels.hpp"
#include "row_norms/reference.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

const std::filesystem::path kRowNormsSource = std::filesystem::path(GI_SOURCE_DIR) / "kernels/row_norms/row_norms.cu";
const std::filesystem::path kRowNormsShfl = std::filesystem::path(GI_TEST_DATA_DIR) / "warp_reduce/row_norms_shfl.cu";

TEST(RowNormsEmulated, TheEmulatedVariantIsWhatGiToolWrites) {
    GrammarOptions options;
    options.functions = {"row_norms"};
    const Grammar grammar = build_grammar(read_source_file(kRowNormsSource), options);
    const AppliedVariant variant = apply_genome(parse_genome("shfl_row_norms.cu_30=1"), grammar);
    EXPECT_EQ(variant.source, read_source_file(kRowNormsShfl).text)
        << "regenerate it: gi-tool apply kernels/row_norms/row_norms.cu --function row_norms --genome "
           "shfl_row_norms.cu_30=1 -o tests/data/warp_reduce/row_norms_shfl.cu";
}

TEST(RowNormsEmulated, TheWarpsNormsAreTheOriginalsBitForBit) {
    std::map<std::string, const emu::RowNormsConfig*> originals;  // by settings
    for (const emu::RowNormsConfig& c : emu::row_norms_configs())
        if (c.name.rfind("row_norms ", 0) == 0) originals[c.name.substr(10)] = &c;
    int compared = 0;
    for (const emu::RowNormsConfig& variant : emu::row_norms_configs()) {
        if (variant.name.rfind("row_norms_shfl ", 0) != 0) continue;
        const std::string settings = variant.name.substr(15);
        SCOPED_TRACE(settings);
        ASSERT_TRUE(originals.count(settings));
        // Rows shorter than the block (the tail threads add zeros), and longer.
        for (const auto& [rows, cols] : {std::pair{5, 20}, std::pair{7, 1500}}) {
            const row_norms::NormProblem problem = row_norms::make_norm_problem(rows, cols, 11);
            const std::vector<float> reference = row_norms::row_norms_reference(problem);
            for (const emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                const std::vector<float> original = originals[settings]->run(problem, order);
                const std::vector<float> shfl = variant.run(problem, order);
                ASSERT_EQ(shfl.size(), original.size());
                EXPECT_EQ(std::memcmp(shfl.data(), original.data(), shfl.size() * sizeof(float)), 0);
                for (std::size_t r = 0; r < shfl.size(); ++r)
                    EXPECT_NEAR(shfl[r], reference[r], 1e-5 * reference[r]) << "row " << r;
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 4 * 2 * 2);
}

}  // namespace
}  // namespace gi
