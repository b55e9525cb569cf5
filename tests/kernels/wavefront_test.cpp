// kernels/wavefront: the CPU reference is Needleman-Wunsch (hand-checked scores, symmetry of the
// table, a sequence against itself), and wavefront.cu itself, run on the CPU emulator one
// anti-diagonal of tiles per launch, fills the same matrix for lengths around the tile size.
#include <gtest/gtest.h>

#include <algorithm>

#include "emulator/corpus_kernels.hpp"
#include "wavefront/reference.hpp"

namespace gi::wavefront {
namespace {

TEST(WavefrontReference, TheTableIsSymmetricAndFavoursIdentity) {
    const std::vector<int> t = substitution_table();
    ASSERT_EQ(t.size(), static_cast<std::size_t>(kAlphabet * kAlphabet));
    for (int a = 0; a < kAlphabet; ++a)
        for (int b = 0; b < kAlphabet; ++b) {
            EXPECT_EQ(t[a * kAlphabet + b], t[b * kAlphabet + a]);
            if (a != b) EXPECT_LT(t[a * kAlphabet + b], t[a * kAlphabet + a]);
        }
}

TEST(WavefrontReference, ScoresByHand) {
    // Identity scores 5, anything else -1, gap 2: "AB" against "B" is best as a gap then B-B.
    std::vector<int> table(kAlphabet * kAlphabet, -1);
    for (int a = 0; a < kAlphabet; ++a) table[a * kAlphabet + a] = 5;
    const SequencePair s{{0, 1}, {1}};
    const std::vector<int> score = align_reference(s, table, 2);
    // Rows i = 0..2, columns j = 0..1.
    EXPECT_EQ(score, (std::vector<int>{0, -2, -2, -1, -4, 3}));
    EXPECT_EQ(initial_scores(2, 1, 2), (std::vector<int>{0, -2, -2, 0, -4, 0}));
}

TEST(WavefrontReference, ASequenceAgainstItselfScoresItsIdentities) {
    const SequencePair pair = make_sequences(60, 60, 3);
    const SequencePair self{pair.a, pair.a};
    const std::vector<int> table = substitution_table();
    int identity = 0;
    for (int r : pair.a) identity += table[r * kAlphabet + r];
    EXPECT_EQ(align_reference(self, table, 10).back(), identity);
}

TEST(WavefrontReference, SequencesAreSeededAndRelated) {
    const SequencePair s = make_sequences(200, 180, 5);
    EXPECT_EQ(s.a.size(), 200u);
    EXPECT_EQ(s.b.size(), 180u);
    EXPECT_EQ(s.b, make_sequences(200, 180, 5).b);
    EXPECT_NE(s.a, make_sequences(200, 180, 6).a);
    for (int r : s.b) ASSERT_TRUE(r >= 0 && r < kAlphabet);
    // Related: aligning them scores far above aligning against an unrelated sequence.
    const std::vector<int> table = substitution_table();
    const SequencePair unrelated{s.a, make_sequences(180, 180, 99).a};
    EXPECT_GT(align_reference(s, table, 10).back(), align_reference(unrelated, table, 10).back() + 200);
    EXPECT_THROW(make_sequences(0, 5, 1), std::invalid_argument);
}

TEST(WavefrontEmulated, EveryConfigurationFillsTheReferenceMatrix) {
    ASSERT_GE(emu::wavefront_configs().size(), 2u);
    const std::vector<int> table = substitution_table();
    for (auto [n, m] : {std::pair{40, 37}, std::pair{16, 16}, std::pair{1, 1}, std::pair{5, 33}, std::pair{33, 8}}) {
        const SequencePair s = make_sequences(n, m, n * 100 + m);
        const std::vector<int> expected = align_reference(s, table, 10);
        for (const emu::WavefrontConfig& config : emu::wavefront_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " " + std::to_string(n) + "x" + std::to_string(m) +
                             (order == emu::Order::Forward ? " forward" : " reverse"));
                EXPECT_EQ(config.run(s, table, 10, order), expected);
            }
        }
    }
}

}  // namespace
}  // namespace gi::wavefront
