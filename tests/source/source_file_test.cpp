#include "source/source_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "util/error.hpp"

namespace gi {
namespace {

std::string masked(const std::string& text) { return mask_comments_and_strings(make_source_file("m.cu", text)); }

std::string source_error_of(const std::string& text) {
    try {
        masked(text);
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(SourceFile, LineNumbersOfOffsets) {
    const SourceFile file = make_source_file("dir/k.cu", "ab\ncd\n\nef");
    EXPECT_EQ(file.name, "k.cu");
    EXPECT_EQ(file.path, "dir/k.cu");
    EXPECT_EQ(file.line_starts, (std::vector<std::size_t>{0, 3, 6, 7}));
    EXPECT_EQ(file.line_of(0), 1);
    EXPECT_EQ(file.line_of(2), 1);  // the newline belongs to its line
    EXPECT_EQ(file.line_of(3), 2);
    EXPECT_EQ(file.line_of(6), 3);
    EXPECT_EQ(file.line_of(8), 4);
}

TEST(SourceFile, ALeadingByteOrderMarkIsMaskedAndOnlyThere) {
    EXPECT_EQ(masked("\xEF\xBB\xBF#define A 1\n"), "   #define A 1\n");
    EXPECT_EQ(masked("\xEF\xBB\xBF// c\n"), "       \n");
    EXPECT_EQ(masked("a\xEF\xBB\xBF"), "a\xEF\xBB\xBF");  // inside the text it is text
}

TEST(SourceFile, TrailingNewlineStartsNoExtraLine) {
    EXPECT_EQ(make_source_file("k.cu", "a\nb\n").line_starts.size(), 2u);
    EXPECT_EQ(make_source_file("k.cu", "").line_starts.size(), 1u);
}

TEST(SourceFile, ReadsFilesExactlyAndNamesMissingOnes) {
    const auto path = std::filesystem::temp_directory_path() / "gi_source_file_test.cu";
    {
        std::ofstream out(path, std::ios::binary);
        out << "line one\r\nline two\n";
    }
    const SourceFile file = read_source_file(path);
    EXPECT_EQ(file.text, "line one\r\nline two\n");
    EXPECT_EQ(file.name, "gi_source_file_test.cu");
    std::filesystem::remove(path);
    try {
        read_source_file(path);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("gi_source_file_test.cu"), std::string::npos) << e.what();
    }
    EXPECT_THROW(read_source_file(std::filesystem::temp_directory_path()), Error);
}

TEST(Mask, BlanksCommentsKeepsNewlinesAndOffsets) {
    const std::string text = "a; // x { ;\nb /* { ;\n } */ c;\n";
    const std::string m = masked(text);
    ASSERT_EQ(m.size(), text.size());
    EXPECT_EQ(m, "a;         \nb       \n      c;\n");
}

TEST(Mask, BlanksLiteralContentsButKeepsQuotes) {
    EXPECT_EQ(masked("s = \"a{;}\\\"b\"; c = '}';"), "s = \"       \"; c = ' ';");
    EXPECT_EQ(masked("c = '\\'';"), "c = '  ';");
}

TEST(Mask, DigitSeparatorsAreNotCharacterLiterals) {
    EXPECT_EQ(masked("x = 1'000'000; y = '{';"), "x = 1'000'000; y = ' ';");
}

TEST(Mask, RawStringsAndPrefixes) {
    EXPECT_EQ(masked("a = R\"(x\"}{)\"; b"), "a = R\"      \"; b");
    EXPECT_EQ(masked("a = R\"d(x)\"})d\"; b"), "a = R\"        \"; b");
    EXPECT_EQ(masked("w = L\"{\";"), "w = L\" \";");
}

TEST(Mask, LineCommentContinuedByBackslash) {
    EXPECT_EQ(masked("// a \\\n{ still comment\nb;"), "      \n               \nb;");
}

TEST(Mask, ErrorDirectiveTextMayHoldApostrophes) {
    const std::string m = masked("#error don't do this\nx = 1;");
    EXPECT_EQ(m.substr(0, 6), "#error");
    EXPECT_EQ(m.substr(m.find('\n')), "\nx = 1;");
}

TEST(Mask, UnterminatedBlockCommentNamesItsLine) {
    const std::string message = source_error_of("a;\nb; /* never closed\nc;\n");
    EXPECT_NE(message.find("m.cu:2:"), std::string::npos) << message;
    EXPECT_NE(message.find("block comment"), std::string::npos) << message;
}

TEST(Mask, UnterminatedStringAndCharacterLiterals) {
    std::string message = source_error_of("a;\ns = \"abc;\nt;\n");
    EXPECT_NE(message.find("m.cu:2:"), std::string::npos) << message;
    EXPECT_NE(message.find("string literal"), std::string::npos) << message;
    message = source_error_of("c = 'x;\n");
    EXPECT_NE(message.find("m.cu:1:"), std::string::npos) << message;
    EXPECT_NE(message.find("character literal"), std::string::npos) << message;
    message = source_error_of("r = R\"(abc\n");
    EXPECT_NE(message.find("raw string"), std::string::npos) << message;
}

TEST(Mask, EscapedNewlineContinuesAString) {
    EXPECT_EQ(masked("s = \"a\\\nb\";"), "s = \"  \n \";");
}

}  // namespace
}  // namespace gi
