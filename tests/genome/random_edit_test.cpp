#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "genome/random_edit.hpp"
#include "genome/validate.hpp"
#include "hand_grammar.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

using testing::sample_kernel;

class RandomEdit : public ::testing::Test {
protected:
    Grammar grammar = sample_kernel().build();
    MacroTable defaults = macros_for(Genome{}, grammar);
};

// Counted by hand from sample_kernel(): 5 deletes, 16 replaces and 21 inserts of statements, one
// if-condition swap (line 9 may take line 6's, not the reverse: j is not visible at line 6), no
// for-part swaps (each loop part is alone of its kind), 17 unroll settings of the empty pragma slot.
TEST_F(RandomEdit, EnumeratesExactlyTheLegalEdits) {
    const EditSpace space(grammar, defaults);
    const std::vector<Edit> edits = space.enumerate();
    EXPECT_EQ(space.size(), 60u);
    ASSERT_EQ(edits.size(), 60u);
    std::map<std::string, int> by_category;
    for (const Edit& e : edits) ++by_category[edit_category(e, grammar)];
    EXPECT_EQ(by_category, (std::map<std::string, int>{{"delete", 5}, {"replace", 16}, {"insert", 21}, {"if", 1}, {"pragma", 17}}));
    std::set<std::string> distinct;
    for (const Edit& e : edits) distinct.insert(edit_to_text(e));
    EXPECT_EQ(distinct.size(), edits.size()) << "no edit listed twice";
}

TEST_F(RandomEdit, EveryEnumeratedEditIsValidAndChangesTheSource) {
    const std::string original = apply_genome(Genome{}, grammar).source;
    for (const Edit& e : enumerate_legal_edits(grammar, defaults)) {
        Genome g;
        g.edits.push_back(e);
        EXPECT_TRUE(validate_genome(g, grammar).empty()) << edit_to_text(e);
        const std::string source = apply_genome(g, grammar).source;
        EXPECT_NE(source.substr(source.find('\n')), original.substr(original.find('\n'))) << edit_to_text(e);
    }
}

TEST_F(RandomEdit, RulesThePreprocessorRemovesAreNeverTargetsNorSources) {
    const MacroTable off = macros_for(parse_genome("USE_SHARED=0"), grammar);
    const EditSpace space(grammar, off);
    EXPECT_EQ(space.size(), 46u);
    for (const Edit& e : space.enumerate()) {
        EXPECT_NE(e.target, "_k.cu_13");
        EXPECT_NE(e.source, "_k.cu_13");
    }
    Rng rng(5);
    for (int i = 0; i < 500; ++i) {
        const auto e = space.draw(rng, EditWeighting::UniformOverEdits);
        ASSERT_TRUE(e);
        ASSERT_NE(e->target, "_k.cu_13");
        ASSERT_NE(e->source, "_k.cu_13");
    }
}

TEST_F(RandomEdit, SameSeedSameEdits) {
    Rng a(11), b(11), c(12);
    bool differs = false;
    for (int i = 0; i < 50; ++i) {
        const auto x = draw_random_edit(grammar, defaults, a);
        ASSERT_TRUE(x);
        EXPECT_EQ(x, draw_random_edit(grammar, defaults, b));
        differs |= x != draw_random_edit(grammar, defaults, c);
    }
    EXPECT_TRUE(differs);
}

TEST_F(RandomEdit, OpsEqualDrawsEachOperationAThirdOfTheTime) {
    const EditSpace space(grammar, defaults);
    Rng rng(3);
    std::map<Edit::Op, int> counts;
    const int draws = 6000;
    for (int i = 0; i < draws; ++i) ++counts[space.draw(rng, EditWeighting::OpsEqual)->op];
    for (const auto& [op, n] : counts) EXPECT_NEAR(n, draws / 3, draws / 20) << static_cast<int>(op);
}

TEST_F(RandomEdit, UniformDrawsEveryLegalEditAboutEquallyOften) {
    const EditSpace space(grammar, defaults);
    Rng rng(4);
    std::map<std::string, int> counts;
    const int draws = 12000;
    for (int i = 0; i < draws; ++i) ++counts[edit_to_text(*space.draw(rng, EditWeighting::UniformOverEdits))];
    EXPECT_EQ(counts.size(), 60u);
    for (const auto& [text, n] : counts) EXPECT_NEAR(n, draws / 60, 80) << text;
}

TEST(RandomEditEmpty, NoRulesNoEdit) {
    testing::GrammarBuilder b;
    b.text("__global__ void k() {}\n");
    const Grammar g = b.build();
    Rng rng(1);
    EXPECT_FALSE(draw_random_edit(g, {}, rng).has_value());
    EXPECT_TRUE(enumerate_legal_edits(g, {}).empty());
}

TEST(RandomEditPragma, ExistingPragmaMayBeDeletedButNotSetToItself) {
    testing::GrammarBuilder b;
    b.text("    ").rule(RuleKind::Pragma, "#pragma unroll 4", {{}, {}, {}, 0, false, false, {}, "    "}).text("\n");
    const Grammar g = b.build();
    const std::vector<Edit> edits = enumerate_legal_edits(g, {});
    ASSERT_EQ(edits.size(), 17u);  // 16 other settings + delete
    for (const Edit& e : edits) EXPECT_NE(e.source, "pragma_K4");
    EXPECT_EQ(std::count_if(edits.begin(), edits.end(), [](const Edit& e) { return e.op == Edit::Op::Delete; }), 1);
}

TEST_F(RandomEdit, CategoryNames) {
    EXPECT_EQ(edit_category(parse_genome("<_k.cu_8>").edits[0], grammar), "delete");
    EXPECT_EQ(edit_category(parse_genome("<_k.cu_8><_k.cu_10>").edits[0], grammar), "replace");
    EXPECT_EQ(edit_category(parse_genome("<_k.cu_8>+<_k.cu_10>").edits[0], grammar), "insert");
    EXPECT_EQ(edit_category(parse_genome("<IF_k.cu_9><IF_k.cu_6>").edits[0], grammar), "if");
    EXPECT_EQ(edit_category(parse_genome("<for1_k.cu_7><for1_k.cu_7>").edits[0], grammar), "for1");
    EXPECT_EQ(edit_category(parse_genome("<for2_k.cu_7><for2_k.cu_7>").edits[0], grammar), "for2");
    EXPECT_EQ(edit_category(parse_genome("<for3_k.cu_7><for3_k.cu_7>").edits[0], grammar), "for3");
    EXPECT_EQ(edit_category(parse_genome("<pragma_k.cu_7><pragma_K2>").edits[0], grammar), "pragma");
    EXPECT_EQ(edit_category(parse_genome("<_k.cu_77>").edits[0], grammar), "unknown");
}

}  // namespace
}  // namespace gi
