// The genome's text form for PTX instruction edits (issue 46): each form parses and prints back,
// old genome texts parse as before, and malformed items are named with their position.
#include <gtest/gtest.h>

#include "genome/genome.hpp"
#include "genome/genome_ops.hpp"
#include "genome/validate.hpp"
#include "grammar/build_grammar.hpp"
#include "grammar/grammar_options.hpp"
#include "util/error.hpp"
#include "variant/apply.hpp"

namespace gi {
namespace {

TEST(PtxEditText, EachFormParsesAndPrintsBack) {
    const Genome g = parse_genome("ptx:del(12) ptx:copy(3,40) ptx:move(0,7) ptx:swap(5,9) ptx:opnd(12,1,%f7)");
    ASSERT_EQ(g.edits.size(), 5u);
    EXPECT_EQ(g.edits[0], (Edit{Edit::Op::PtxDelete, "12", "", 0}));
    EXPECT_EQ(g.edits[1], (Edit{Edit::Op::PtxCopy, "3", "40", 0}));
    EXPECT_EQ(g.edits[2], (Edit{Edit::Op::PtxMove, "0", "7", 0}));
    EXPECT_EQ(g.edits[3], (Edit{Edit::Op::PtxSwap, "5", "9", 0}));
    EXPECT_EQ(g.edits[4], (Edit{Edit::Op::PtxOperand, "12", "%f7", 1}));
    for (const Edit& e : g.edits) EXPECT_TRUE(is_ptx_edit(e)) << edit_to_text(e);
    EXPECT_EQ(genome_to_text(g), "ptx:del(12) ptx:copy(3,40) ptx:move(0,7) ptx:swap(5,9) ptx:opnd(12,1,%f7)");
}

TEST(PtxEditText, MixesWithSettingsAndSourceEditsInTextOrder) {
    const std::string text = "BLOCK_W=64 <_k.cu_3> ptx:del(4) <_k.cu_5>+<_k.cu_6> ptx:opnd(2,0,%rd10)";
    const Genome g = parse_genome(text);
    EXPECT_EQ(genome_to_text(g), text);
    ASSERT_EQ(g.edits.size(), 4u);
    EXPECT_FALSE(is_ptx_edit(g.edits[0]));
    EXPECT_TRUE(is_ptx_edit(g.edits[1]));
    // Minimisation's items: a PTX edit is one item like any other, and may be knocked out alone.
    EXPECT_EQ(genome_items(g), (std::vector<std::string>{"BLOCK_W=64", "<_k.cu_3>", "ptx:del(4)", "<_k.cu_5>+<_k.cu_6>",
                                                         "ptx:opnd(2,0,%rd10)"}));
    EXPECT_EQ(genome_to_text(without_item(g, 2)), "BLOCK_W=64 <_k.cu_3> <_k.cu_5>+<_k.cu_6> ptx:opnd(2,0,%rd10)");
}

// Backward compatibility: a rule id may hold almost anything, so "<ptx:del(1)>" is still a rule
// edit; only an item outside < > starting "ptx:" is a PTX edit, and no such item parsed before.
TEST(PtxEditText, OldTextsParseAsBefore) {
    const Genome g = parse_genome("<ptx:del(1)> <ptx:a>+<ptx:b>");
    ASSERT_EQ(g.edits.size(), 2u);
    EXPECT_EQ(g.edits[0], (Edit{Edit::Op::Delete, "ptx:del(1)", ""}));
    EXPECT_EQ(g.edits[1], (Edit{Edit::Op::Insert, "ptx:a", "ptx:b"}));
    EXPECT_FALSE(is_ptx_edit(g.edits[0]));
}

struct PtxMalformed {
    std::string text, item, position, says;
};

class PtxEditTextErrors : public ::testing::TestWithParam<PtxMalformed> {};

TEST_P(PtxEditTextErrors, NameItemAndPosition) {
    const PtxMalformed& m = GetParam();
    try {
        parse_genome(m.text);
        FAIL() << "parsed: " << m.text;
    } catch (const Error& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("'" + m.item + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("at character " + m.position + ":"), std::string::npos) << message;
        EXPECT_NE(message.find(m.says), std::string::npos) << message;
    }
}

INSTANTIATE_TEST_SUITE_P(
    All, PtxEditTextErrors,
    ::testing::Values(PtxMalformed{"ptx:del", "ptx:del", "1", "a PTX edit is written"},
                      PtxMalformed{"A=1 ptx:del(3", "ptx:del(3", "5", "a PTX edit is written"},
                      PtxMalformed{"ptx:drop(3)", "ptx:drop(3)", "5", "unknown PTX edit 'drop'"},
                      PtxMalformed{"ptx:del(1,2)", "ptx:del(1,2)", "8", "takes 1 argument"},
                      PtxMalformed{"ptx:swap(1)", "ptx:swap(1)", "9", "takes 2 arguments"},
                      PtxMalformed{"ptx:del(01)", "ptx:del(01)", "9", "not an instruction index"},
                      PtxMalformed{"ptx:move(-1,2)", "ptx:move(-1,2)", "10", "not an instruction index"},
                      PtxMalformed{"ptx:opnd(1,0,r5)", "ptx:opnd(1,0,r5)", "10", "not a register name"},
                      PtxMalformed{"ptx:opnd(1,x,%r5)", "ptx:opnd(1,x,%r5)", "10", "not an instruction index"},
                      PtxMalformed{"ptx:copy(1,)", "ptx:copy(1,)", "10", "not an instruction index"}));

// Source application and validation leave PTX edits to the PTX stage: the variant's source is the
// one its source part makes, and the grammar does not judge instruction indexes.
TEST(PtxEditText, SourceApplicationAndValidationLeaveThemOut) {
    SourceFile file{"k.cu", "k.cu", "__global__ void k(float* x) {\n    x[0] = 1.0f;\n    x[1] = 2.0f;\n}\n"};
    GrammarOptions options;
    options.functions = {"k"};
    const Grammar grammar = build_grammar(file, options);
    ASSERT_FALSE(grammar.rules.empty());
    const Genome plain = parse_genome("<" + grammar.rules[0].id + ">");
    const Genome mixed = parse_genome("<" + grammar.rules[0].id + "> ptx:del(0) ptx:opnd(1,0,%r1)");
    EXPECT_TRUE(validate_genome(mixed, grammar).empty());
    const AppliedVariant a = apply_genome(plain, grammar), b = apply_genome(mixed, grammar);
    EXPECT_EQ(a.source.substr(a.source.find('\n')), b.source.substr(b.source.find('\n')));
    EXPECT_TRUE(b.skipped_edits.empty());
}

}  // namespace
}  // namespace gi
