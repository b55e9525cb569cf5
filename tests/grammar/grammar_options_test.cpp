#include "grammar/grammar_options.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

using Values = std::vector<std::string>;

std::string usage_error(void (*parse)(const std::string&), const std::string& text) {
    try {
        parse(text);
    } catch (const UsageError& e) {
        return e.what();
    }
    return "no error";
}

void parse_param(const std::string& text) { parse_param_declaration(text, "--param"); }
void parse_flag(const std::string& text) { parse_flag_declaration(text, "--flag"); }

TEST(ParamDeclaration, ListsRangesAndMixtures) {
    ParamDeclaration p = parse_param_declaration("BLOCK_W=32,64,128", "--param");
    EXPECT_EQ(p.name, "BLOCK_W");
    EXPECT_EQ(p.values, (Values{"32", "64", "128"}));
    EXPECT_TRUE(p.numeric);
    p = parse_param_declaration("ROWS=1..4", "--param");
    EXPECT_EQ(p.values, (Values{"1", "2", "3", "4"}));
    p = parse_param_declaration("ROWS=1..3,8,2,16", "--param");
    EXPECT_EQ(p.values, (Values{"1", "2", "3", "8", "16"})) << "order kept, duplicates dropped";
    p = parse_param_declaration("OUT_TYPE=float,int", "--param");
    EXPECT_EQ(p.values, (Values{"float", "int"}));
    EXPECT_FALSE(p.numeric);
    p = parse_param_declaration("NEG=-2..1", "--param");
    EXPECT_EQ(p.values, (Values{"-2", "-1", "0", "1"}));
    EXPECT_TRUE(p.numeric);
}

TEST(ParamDeclaration, MalformedTextIsAUsageErrorNamingTheArgument) {
    for (const char* bad : {"BLOCK_W", "=32", "BLOCK_W=", "1X=3", "BLOCK W=3", "A=1,,2", "A=5..1", "A=x..3",
                            "A=1..100000", "A=a b", "A=1,"}) {
        const std::string message = usage_error(parse_param, bad);
        EXPECT_NE(message.find("--param"), std::string::npos) << bad << ": " << message;
        EXPECT_NE(message.find(bad), std::string::npos) << bad << ": " << message;
    }
}

TEST(FlagDeclaration, OnOffFlag) {
    const FlagDeclaration f = parse_flag_declaration("-use_fast_math", "--flag");
    EXPECT_EQ(f.name, "use_fast_math");
    EXPECT_EQ(f.flag_template, "-use_fast_math");
    EXPECT_TRUE(f.values.empty());
}

TEST(FlagDeclaration, ValuedFlagsInBraces) {
    FlagDeclaration f = parse_flag_declaration("-maxrregcount={32..35}", "--flag");
    EXPECT_EQ(f.name, "maxrregcount");
    EXPECT_EQ(f.flag_template, "-maxrregcount={}");
    EXPECT_EQ(f.values, (Values{"32", "33", "34", "35"}));
    EXPECT_TRUE(f.numeric);
    f = parse_flag_declaration("-Xptxas -dlcm={ca|cg}", "--flag");
    EXPECT_EQ(f.name, "dlcm") << "the option that varies names the gene";
    EXPECT_EQ(f.flag_template, "-Xptxas -dlcm={}");
    EXPECT_EQ(f.values, (Values{"ca", "cg"}));
    EXPECT_FALSE(f.numeric);
}

TEST(FlagDeclaration, ExplicitNameAndValuesWithoutBraces) {
    FlagDeclaration f = parse_flag_declaration("cache:-Xptxas -dlcm={ca|cg}", "--flag");
    EXPECT_EQ(f.name, "cache");
    EXPECT_EQ(f.flag_template, "-Xptxas -dlcm={}");
    f = parse_flag_declaration("-Xptxas -dlcm=ca|cg", "--flag");
    EXPECT_EQ(f.name, "dlcm");
    EXPECT_EQ(f.flag_template, "-Xptxas -dlcm={}");
    EXPECT_EQ(f.values, (Values{"ca", "cg"}));
    f = parse_flag_declaration("-maxrregcount=32..33", "--flag");
    EXPECT_EQ(f.flag_template, "-maxrregcount={}");
    EXPECT_EQ(f.values, (Values{"32", "33"}));
    f = parse_flag_declaration("--fmad=false", "--flag");
    EXPECT_EQ(f.name, "fmad");
    EXPECT_EQ(f.flag_template, "--fmad=false");
    EXPECT_TRUE(f.values.empty());
}

TEST(FlagDeclaration, MalformedTextIsAUsageErrorNamingTheArgument) {
    for (const char* bad : {"", "use_fast_math", "-a={1|2", "-a=}1{", "-a={}", "-a={1}{2}", "bad name:-x",
                            "-a={1..0}", "-a={x y}", "--"}) {
        const std::string message = usage_error(parse_flag, bad);
        EXPECT_NE(message.find("--flag"), std::string::npos) << bad << ": " << message;
    }
}

}  // namespace
}  // namespace gi
