// The one rule for untrusted text on its way into generated code or onto a terminal (issue 39,
// classes 1 and 2).
#include <gtest/gtest.h>

#include <string>

#include "util/error.hpp"
#include "util/text_rule.hpp"

namespace gi {
namespace {

const std::string kC1Csi = "\xc2\x9b";         // U+009B, ESC [ on some terminals
const std::string kRightToLeft = "\xe2\x80\xae";  // U+202E, the "Trojan Source" override
const std::string kIsolate = "\xe2\x81\xa6";      // U+2066

TEST(TextRule, FindsEveryKindOfControlCharacter) {
    EXPECT_EQ(first_control_character("NVIDIA H100 80GB HBM3"), std::string::npos);
    EXPECT_EQ(first_control_character("caf\xc3\xa9 \xe3\x82\xb1"), std::string::npos);  // UTF-8 letters are text
    EXPECT_EQ(first_control_character("a\nb"), 1u);
    EXPECT_EQ(first_control_character("ab\r"), 2u);
    EXPECT_EQ(first_control_character("\x1b[2A"), 0u);
    EXPECT_EQ(first_control_character(std::string("x\0y", 3)), 1u);
    EXPECT_EQ(first_control_character("x\x7f"), 1u);
    EXPECT_EQ(first_control_character("x\t"), 1u);
    EXPECT_EQ(first_control_character("ok" + kC1Csi), 2u);
    EXPECT_EQ(first_control_character("ok" + kRightToLeft), 2u);
    EXPECT_EQ(first_control_character("ok" + kIsolate), 2u);
    // Neighbours of the ranges are letters and punctuation.
    EXPECT_EQ(first_control_character("\xc2\xa0\xe2\x80\xa9\xe2\x81\xa5"), std::string::npos);
}

TEST(TextRule, RefusalNamesWhatAndWhere) {
    try {
        refuse_control_characters("H100\n__attribute__", "--gpu", "give one line", true);
        FAIL() << "not refused";
    } catch (const UsageError& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("--gpu holds a control character (\\x0a at byte 5 of 18)"), std::string::npos) << message;
        EXPECT_NE(message.find("give one line"), std::string::npos) << message;
    }
    EXPECT_THROW(refuse_control_characters("a\rb", "<note>"), Error);
    EXPECT_NO_THROW(refuse_control_characters("plain text, with punctuation: \"*/??\\", "<note>"));
}

TEST(TextRule, PrintableEscapesOnlyControlCharacters) {
    EXPECT_EQ(printable("\x1b[2A\x1b[0J"), "\\x1b[2A\\x1b[0J");
    EXPECT_EQ(printable("a" + kC1Csi + "b"), "a\\xc2\\x9bb");
    EXPECT_EQ(printable(kRightToLeft + "x"), "\\xe2\\x80\\xaex");
    EXPECT_EQ(printable("C:\\path \"q\" caf\xc3\xa9"), "C:\\path \"q\" caf\xc3\xa9");
    EXPECT_EQ(printable_message("line 1\n\tline 2\x1b[2K"), "line 1\n\tline 2\\x1b[2K");
}

TEST(TextRule, CommentTextNeverLeavesItsComment) {
    // A newline would end a // comment, a backslash at the end of the line would join the next
    // line to it, "*/" ends a block comment, "??/" is a backslash under -std=c++14.
    const std::string text = "H100\n__attribute__((constructor)) void x(){}\r*/ int y; /* ??/\\";
    const std::string comment = comment_text(text);
    EXPECT_EQ(comment.find('\n'), std::string::npos);
    EXPECT_EQ(comment.find('\r'), std::string::npos);
    EXPECT_EQ(comment.find("*/"), std::string::npos);
    EXPECT_EQ(comment.find("??"), std::string::npos);
    EXPECT_NE(comment.back(), '\\');
    EXPECT_EQ(comment, "H100\\x0a__attribute__((constructor)) void x(){}\\x0d\\x2a/ int y; /* \\x3f?/\\x5c");
    EXPECT_EQ(comment_text("SCALE=3 <_scale.cu_10>+<_scale.cu_9>"), "SCALE=3 <_scale.cu_10>+<_scale.cu_9>");
}

TEST(TextRule, CStringLiteralsHoldAnyBytes) {
    EXPECT_EQ(c_string_literal("gi-cache/\"x\".xml"), "\"gi-cache/\\\"x\\\".xml\"");
    EXPECT_EQ(c_string_literal("a\rb\nc"), "\"a\\015b\\012c\"");
    EXPECT_EQ(c_string_literal("??/"), "\"\\?\\?/\"");
    EXPECT_EQ(c_string_literal("\\"), "\"\\\\\"");
    // Octal escapes are three digits: "\0" then "12" is not read as "\012".
    EXPECT_EQ(c_string_literal(std::string("\0" "12", 3)), "\"\\00012\"");
    EXPECT_EQ(c_string_literal("caf\xc3\xa9"), "\"caf\\303\\251\"");
}

TEST(TextRule, IncludeDirectivesRefuseWhatTheyCannotName) {
    EXPECT_EQ(include_directive("/src/my kernel.cu"), "#include \"/src/my kernel.cu\"\n");
    for (const std::string bad : {"/src/we'ird \"dir\"/k.cu", "/src/back\\slash/k.cu", "/src/a\nb.cu", "/src/??/k.cu"})
        EXPECT_THROW(include_directive(bad), Error) << bad;
}

}  // namespace
}  // namespace gi
