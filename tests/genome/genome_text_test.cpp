#include <gtest/gtest.h>

#include "genome/genome.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace gi {
namespace {

TEST(GenomeText, ParsesTheSeedsExample) {
    const Genome g = parse_genome(
        "BLOCK_W=64 ROWS=5 <IF_k.cu_245><IF_k.cu_167> <_k.cu_288>+<_k.cu_293> <_k.cu_300> "
        "<pragma_k.cu_158><pragma_K4>");
    ASSERT_EQ(g.settings.size(), 2u);
    EXPECT_EQ(g.settings[0], (GeneSetting{"BLOCK_W", "64"}));
    EXPECT_EQ(g.settings[1], (GeneSetting{"ROWS", "5"}));
    ASSERT_EQ(g.edits.size(), 4u);
    EXPECT_EQ(g.edits[0], (Edit{Edit::Op::Replace, "IF_k.cu_245", "IF_k.cu_167"}));
    EXPECT_EQ(g.edits[1], (Edit{Edit::Op::Insert, "_k.cu_288", "_k.cu_293"}));
    EXPECT_EQ(g.edits[2], (Edit{Edit::Op::Delete, "_k.cu_300", ""}));
    EXPECT_EQ(g.edits[3], (Edit{Edit::Op::Replace, "pragma_k.cu_158", "pragma_K4"}));
}

TEST(GenomeText, PrintsSettingsFirstAndRoundTrips) {
    const std::string text =
        "BLOCK_W=64 use_fast_math=1 <IF_k.cu_245><IF_k.cu_167> <_k.cu_288>+<_k.cu_293> <_k.cu_300>";
    EXPECT_EQ(genome_to_text(parse_genome(text)), text);
    // Settings may be written anywhere; printing moves them to the front in their own order.
    EXPECT_EQ(genome_to_text(parse_genome("<_k.cu_3> A=1 <_k.cu_4><_k.cu_5> B=off")),
              "A=1 B=off <_k.cu_3> <_k.cu_4><_k.cu_5>");
}

TEST(GenomeText, ToleratesExtraWhitespaceAndEmptyText) {
    EXPECT_TRUE(parse_genome("").empty());
    EXPECT_TRUE(parse_genome("  \t\n ").empty());
    EXPECT_EQ(genome_to_text(parse_genome("  A=1\t\t<_k.cu_3>  \n")), "A=1 <_k.cu_3>");
    EXPECT_EQ(genome_to_text(Genome{}), "");
}

TEST(GenomeText, EditTextForEachOperation) {
    EXPECT_EQ(edit_to_text({Edit::Op::Delete, "_k.cu_3", ""}), "<_k.cu_3>");
    EXPECT_EQ(edit_to_text({Edit::Op::Replace, "_k.cu_3", "_k.cu_4"}), "<_k.cu_3><_k.cu_4>");
    EXPECT_EQ(edit_to_text({Edit::Op::Insert, "_k.cu_3", "_k.cu_4"}), "<_k.cu_3>+<_k.cu_4>");
}

TEST(GenomeText, RuleIdsMayHoldDotsDashesAndSlotNumbers) {
    const Genome g = parse_genome("<_my-kernel.v2.cu_12.2>+<for3_a.cuh_7.3>");
    ASSERT_EQ(g.edits.size(), 1u);
    EXPECT_EQ(g.edits[0].target, "_my-kernel.v2.cu_12.2");
    EXPECT_EQ(g.edits[0].source, "for3_a.cuh_7.3");
}

// Random genomes built from the syntax's own alphabet print and parse back to themselves.
TEST(GenomeText, RandomGenomesRoundTrip) {
    Rng rng(2024);
    const std::string name_chars = "ABCXYZabcxyz019_-.";
    const std::string value_chars = "0123456789abcxyz_-.,|+:";
    const std::string id_chars = "abcxyz_.0123456789-+=";
    auto word = [&](const std::string& alphabet, int max_len) {
        std::string w;
        const auto len = rng.uniform_int(1, max_len);
        for (int i = 0; i < len; ++i) w += alphabet[rng.index(alphabet.size())];
        return w;
    };
    for (int trial = 0; trial < 500; ++trial) {
        Genome g;
        const auto settings = rng.uniform_int(0, 4);
        for (int i = 0; i < settings; ++i) g.settings.push_back({word(name_chars, 12), word(value_chars, 6)});
        const auto edits = rng.uniform_int(0, 6);
        for (int i = 0; i < edits; ++i) {
            Edit e;
            e.op = static_cast<Edit::Op>(rng.uniform_int(0, 2));
            e.target = word(id_chars, 16);
            if (e.op != Edit::Op::Delete) e.source = word(id_chars, 16);
            g.edits.push_back(e);
        }
        const std::string text = genome_to_text(g);
        ASSERT_EQ(parse_genome(text), g) << text;
        ASSERT_EQ(genome_to_text(parse_genome(text)), text);
    }
}

TEST(GenomeText, SettingOrReadsTheLastSetting) {
    const Genome g = parse_genome("A=1 B=2 A=3");
    EXPECT_EQ(setting_or(g, "A", "0"), "3");
    EXPECT_EQ(setting_or(g, "B", "0"), "2");
    EXPECT_EQ(setting_or(g, "C", "7"), "7");
}

TEST(GenomeText, SetGeneKeepsPositionAndDropsDuplicates) {
    Genome g = parse_genome("A=1 B=2 A=3 <_k.cu_3>");
    set_gene(g, "A", "9");
    EXPECT_EQ(genome_to_text(g), "A=9 B=2 <_k.cu_3>");
    set_gene(g, "C", "4");
    EXPECT_EQ(genome_to_text(g), "A=9 B=2 C=4 <_k.cu_3>");
    EXPECT_EQ(setting_or(g, "A", ""), "9");
}

// Each malformed text names the bad item and where it starts or goes wrong (1-based characters).
struct Malformed {
    std::string text;
    std::string item;
    std::string position;
    std::string says;
};

class GenomeTextErrors : public ::testing::TestWithParam<Malformed> {};

TEST_P(GenomeTextErrors, NameItemAndPosition) {
    const Malformed& m = GetParam();
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
    All, GenomeTextErrors,
    ::testing::Values(Malformed{"A=1 <_k.cu_12", "<_k.cu_12", "5", "unterminated"},
                      Malformed{"<_k.cu_3>+", "<_k.cu_3>+", "11", "must be followed by the rule to insert"},
                      Malformed{"<_k.cu_3>+_k.cu_4", "<_k.cu_3>+_k.cu_4", "11", "must be followed"},
                      Malformed{"=5", "=5", "1", "without a name"},
                      Malformed{"A=1 NAME=", "NAME=", "9", "without a value"},
                      Malformed{"junk", "junk", "1", "neither a gene setting"},
                      Malformed{"<_k.cu_3> junk", "junk", "11", "neither a gene setting"},
                      Malformed{"<A><B><C>", "<A><B><C>", "7", "at most two rules"},
                      Malformed{"<A>+<B>+<C>", "<A>+<B>+<C>", "8", "at most two rules"},
                      Malformed{"<A>x", "<A>x", "4", "unexpected 'x'"},
                      Malformed{"<>", "<>", "1", "empty rule name"},
                      Malformed{"<A><>", "<A><>", "4", "empty rule name"},
                      Malformed{"<A<B>", "<A<B>", "3", "'<' inside a rule name"},
                      Malformed{"A=<B>", "A=<B>", "3", "in a gene value"},
                      Malformed{"A=1=2", "A=1=2", "4", "in a gene value"},
                      Malformed{"A/B=1", "A/B=1", "2", "in a gene name"},
                      Malformed{"<A>+<B", "<A>+<B", "5", "unterminated"}));

}  // namespace
}  // namespace gi
