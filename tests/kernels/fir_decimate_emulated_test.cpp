// kernels/fir_decimate and its variant with the thread-coarsening transformation (four blocks'
// work a block, fir_grid launching a quarter of the blocks) on the CPU emulator, at 256 and 32
// threads a block, threads in forward and reverse order, on output counts that fill the blocks and
// that leave the last (coarsened) block mostly past the end: every output is the original's bit
// for bit (each iteration is one original thread, summing in the same order). The variant file is
// what gi-tool writes today, checked first.
#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "../grammar/grammar_test_util.hpp"
#include "emulator/corpus_kernels.hpp"
#include "fir_decimate/reference.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

TEST(FirDecimateEmulated, TheEmulatedCoarsenedVariantIsWhatGiToolWrites) {
    GrammarOptions options;
    options.functions = {"fir_decimate"};
    const Grammar grammar = build_grammar(
        read_source_file(std::filesystem::path(GI_SOURCE_DIR) / "kernels/fir_decimate/fir_decimate.cu"), options);
    const AppliedVariant variant = apply_genome(parse_genome("coarsen_fir_decimate.cu_19=4"), grammar);
    EXPECT_EQ(variant.source,
              read_source_file(std::filesystem::path(GI_TEST_DATA_DIR) / "thread_coarsen/fir_decimate_coarsen4.cu").text)
        << "regenerate it: gi-tool apply kernels/fir_decimate/fir_decimate.cu --function fir_decimate --genome "
           "coarsen_fir_decimate.cu_19=4 -o tests/data/thread_coarsen/fir_decimate_coarsen4.cu";
}

TEST(FirDecimateEmulated, TheCoarsenedOutputsAreTheOriginalsBitForBit) {
    std::map<std::string, const emu::FirDecimateConfig*> originals;  // by settings
    for (const emu::FirDecimateConfig& c : emu::fir_decimate_configs())
        if (c.name.rfind("fir_decimate ", 0) == 0) originals[c.name.substr(13)] = &c;
    int compared = 0;
    for (const emu::FirDecimateConfig& variant : emu::fir_decimate_configs()) {
        if (variant.name.rfind("fir_decimate_coarsen4 ", 0) != 0) continue;
        const std::string settings = variant.name.substr(22);
        SCOPED_TRACE(settings);
        ASSERT_TRUE(originals.count(settings));
        for (const int outputs : {1024, 1000, 33}) {
            const fir::FilterProblem problem = fir::make_filter_problem(outputs, 3, 37, 3, 5);
            for (const emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                const std::vector<float> original = originals[settings]->run(problem, 1, order);
                const std::vector<float> coarsened = variant.run(problem, 1, order);
                ASSERT_EQ(coarsened.size(), original.size());
                EXPECT_EQ(std::memcmp(coarsened.data(), original.data(), original.size() * sizeof(float)), 0) << outputs;
                EXPECT_EQ(original, fir::fir_decimate_reference(problem, 1)) << outputs;
                ++compared;
            }
        }
    }
    EXPECT_EQ(compared, 2 * 3 * 2);
}

}  // namespace
}  // namespace gi
