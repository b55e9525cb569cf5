#include "cache/registration.hpp"

#include <gtest/gtest.h>

#include "grammar/grammar.hpp"
#include "util/error.hpp"
#include "util/hash.hpp"

namespace gi {
namespace {

Registration stereo() {
    Registration r;
    r.functions = {"stereoKernel"};
    r.params = {"BLOCK_W=32,64,128", "ROWS_PER_THREAD=1..48"};
    r.flags = {"-Xptxas  -dlcm={ca|cg}"};
    r.block_size = " BLOCK_W ";
    r.grid = "ceil(width/BLOCK_W),\tceil(height/ROWS_PER_THREAD)";
    r.tolerance = {"exact"};
    return r;
}

TEST(CacheRegistration, NormalizeTrimsAndCollapsesWhitespace) {
    EXPECT_EQ(normalize_registration_text("  a \t b\n\nc  "), "a b c");
    EXPECT_EQ(normalize_registration_text(""), "");
    EXPECT_EQ(normalize_registration_text(" \t "), "");
}

// The exact text every existing cache entry's key was made from: cache/key_format.txt defines it for
// gi-tool and cmake/GIOptimize.cmake alike; changing it needs a new kCacheKeyVersion.
TEST(CacheRegistration, KeyTextIsTheDocumentedLines) {
    const std::string expected = "gi-optimize-cache-key 1\ngrammar-version " + std::to_string(kGrammarVersion) +
                                 "\narchitecture sm_90\nsource-sha256 abc\nfunction stereoKernel\n"
                                 "param BLOCK_W=32,64,128\nparam ROWS_PER_THREAD=1..48\nflag -Xptxas -dlcm={ca|cg}\n"
                                 "block-size BLOCK_W\ngrid ceil(width/BLOCK_W), ceil(height/ROWS_PER_THREAD)\n"
                                 "tolerance exact\n";
    EXPECT_EQ(key_text("abc", stereo(), 90), expected);
}

TEST(CacheRegistration, TheFormatRepeatsListLinesAndRefusesUnknownFields) {
    const std::string format = "head {v}\nitem {xs...}\n\ntail <{v}>\n";
    EXPECT_EQ(key_text_from_format(format, {{"v", "1"}}, {{"xs", {"a", "b c"}}}), "head 1\nitem a\nitem b c\ntail <1>\n");
    EXPECT_EQ(key_text_from_format(format, {{"v", ""}}, {{"xs", {}}}), "head \ntail <>\n");
    EXPECT_THROW(key_text_from_format("x {w}\n", {{"v", "1"}}, {}), Error);
    EXPECT_THROW(key_text_from_format("x {xs...}\n", {}, {}), Error);
    EXPECT_THROW(key_text_from_format("no field\n", {}, {}), Error);
}

TEST(CacheRegistration, KeyDependsOnEveryInput) {
    const std::string source = "__global__ void stereoKernel() {}\n";
    const std::string base = cache_key(source, stereo(), 90);
    EXPECT_EQ(base, sha256_hex(key_text(sha256_hex(source), stereo(), 90)));
    EXPECT_NE(cache_key(source + " ", stereo(), 90), base);
    EXPECT_NE(cache_key(source, stereo(), 80), base);
    Registration r = stereo();
    r.params[1] = "ROWS_PER_THREAD=1..16";
    EXPECT_NE(cache_key(source, r, 90), base);
    r = stereo();
    r.grid = "1";
    EXPECT_NE(cache_key(source, r, 90), base);
    r = stereo();
    r.tolerance.clear();
    EXPECT_NE(cache_key(source, r, 90), base);
    r = stereo();
    r.block_size = "BLOCK_W,1,1";
    EXPECT_NE(cache_key(source, r, 90), base);
    r = stereo();
    r.functions.push_back("other");
    EXPECT_NE(cache_key(source, r, 90), base);
    // Whitespace is not part of a declaration's meaning.
    r = stereo();
    r.params[0] = "  BLOCK_W=32,64,128\n";
    EXPECT_EQ(cache_key(source, r, 90), base);
}

TEST(CacheRegistration, DifferencesNameTheField) {
    Registration now = stereo();
    EXPECT_TRUE(registration_differences(stereo(), now).empty());
    now.params[1] = "ROWS_PER_THREAD=1..16";
    now.grid = "1";
    now.flags.clear();
    const auto diff = registration_differences(stereo(), now);
    ASSERT_EQ(diff.size(), 3u);
    EXPECT_EQ(diff[0], "param 2: 'ROWS_PER_THREAD=1..48' in the entry, 'ROWS_PER_THREAD=1..16' now");
    EXPECT_EQ(diff[1], "flag 1: '-Xptxas -dlcm={ca|cg}' in the entry, none now");
    EXPECT_NE(diff[2].find("grid"), std::string::npos);
}

TEST(CacheRegistration, ArchitectureParsing) {
    EXPECT_EQ(parse_architecture("90", "--arch"), 90);
    EXPECT_EQ(parse_architecture("sm_86", "--arch"), 86);
    EXPECT_EQ(parse_architecture("compute_80", "--arch"), 80);
    EXPECT_EQ(architecture_name(90), "sm_90");
    for (const char* bad : {"", "9", "90a", "sm90", "x", "sm_", "-90", "123456"}) {
        try {
            parse_architecture(bad, "--arch");
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const UsageError& e) {
            EXPECT_NE(std::string(e.what()).find("--arch"), std::string::npos) << e.what();
        }
    }
}

TEST(CacheRegistration, EntryFileName) {
    EXPECT_EQ(cache_entry_file_name({"stereoKernel"}, 90), "stereoKernel.sm_90.xml");
    EXPECT_EQ(cache_entry_file_name({"a", "b"}, 80), "a+b.sm_80.xml");
}

}  // namespace
}  // namespace gi

namespace gi {
namespace {

TEST(CacheEntryFileName, AnInstantiationsNameIsMadeFitForFiles) {
    EXPECT_EQ(cache_entry_file_name({"MatrixMulCUDA<32>"}, 90), "MatrixMulCUDA_32_.sm_90.xml");
    EXPECT_EQ(cache_entry_file_name({"a", "b"}, 80), "a+b.sm_80.xml");
}

}  // namespace
}  // namespace gi
