// Random truncations and mutations of real kernels must either build a grammar that reproduces the
// text or throw gi::Error: never crash, hang or throw anything else.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "grammar/build_grammar.hpp"
#include "grammar_test_util.hpp"
#include "util/error.hpp"
#include "util/rng.hpp"

namespace gi {
namespace {

void build_or_error(const std::string& text, const GrammarOptions& options, int& built, int& refused) {
    try {
        const Grammar grammar = test::grammar_of(text, options);
        ASSERT_EQ(test::concatenate(grammar), text) << "invariant broken for:\n" << text;
        ++built;
    } catch (const Error&) {
        ++refused;
    }
}

TEST(GrammarFuzz, TruncationsAndMutationsBuildOrThrowGiError) {
    const char* const files[] = {"stereo_like.cu", "tricky_syntax.cu", "templates_and_host.cu", "preprocessor_regions.cu"};
    const std::string alphabet = "{}()[];,\"'/*#\n \\<>=&|!:.xif0";
    Rng rng(20240601);
    int built = 0;
    int refused = 0;
    for (const char* name : files) {
        const std::string original = read_source_file(test::grammar_data(name)).text;
        GrammarOptions options;
        options.block_size = "64";
        for (int round = 0; round < 150; ++round) {
            std::string text = original;
            switch (round % 3) {
            case 0:  // truncate
                text = text.substr(0, rng.index(text.size() + 1));
                break;
            case 1:  // replace a few characters by syntax that matters
                for (int k = 0; k < 1 + static_cast<int>(rng.index(4)); ++k)
                    text[rng.index(text.size())] = alphabet[rng.index(alphabet.size())];
                break;
            default:  // delete or duplicate a slice
                {
                    const std::size_t at = rng.index(text.size());
                    const std::size_t length = rng.index(std::min<std::size_t>(80, text.size() - at) + 1);
                    if (rng.chance(0.5)) text.erase(at, length);
                    else text.insert(at, text.substr(at, length));
                }
            }
            build_or_error(text, options, built, refused);
        }
    }
    // Both outcomes happen: the fuzzing reaches the error paths and the parser.
    EXPECT_GT(built, 50);
    EXPECT_GT(refused, 50);
}

TEST(GrammarFuzz, MutationsOfTheExampleKernels) {
    const std::filesystem::path root = std::filesystem::path(GI_SOURCE_DIR) / "kernels";
    if (!std::filesystem::is_directory(root)) GTEST_SKIP() << "no kernels/ folder";
    Rng rng(99);
    int built = 0;
    int refused = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
        if (entry.path().extension() != ".cu") continue;
        const std::string original = read_source_file(entry.path()).text;
        if (original.find("__global__") == std::string::npos) continue;
        for (int round = 0; round < 60; ++round) {
            std::string text = original;
            if (round % 2 == 0) {
                text = text.substr(0, rng.index(text.size() + 1));
            } else {
                const std::string alphabet = "{}()[];\"'/*#\n";
                for (int k = 0; k < 2; ++k) text[rng.index(text.size())] = alphabet[rng.index(alphabet.size())];
            }
            build_or_error(text, {}, built, refused);
        }
    }
    EXPECT_GT(built + refused, 0);
}

// Found by MutationsOfTheExampleKernels on matmul.cu: a '#' in a loop's bound, joined again as the
// bound's own text, reads as a directive, and the loop-shape check dereferenced the tokens it did
// not get (std::bad_alloc, or a crash). The loop is now no counted loop, and offered no unroll.
TEST(GrammarFuzz, AStrayHashInALoopBoundIsNoCountedLoop) {
    for (const char* bound : {"k <#16", "k <# TILE", "k < n; k +=#2"}) {
        SCOPED_TRACE(bound);
        std::string text = "__global__ void mm(const float* A, float* C, int n)\n{\n    float acc = 0.0f;\n"
                           "    for (int k = 0; " + std::string(bound) + (std::string(bound).find(';') == std::string::npos ? "; ++k)" : ")") +
                           "\n        acc += A[k];\n    C[0] = acc;\n}\n";
        int built = 0, refused = 0;
        build_or_error(text, {}, built, refused);
        EXPECT_EQ(built + refused, 1);
        if (!built) continue;
        const Grammar grammar = test::grammar_of(text, {});
        EXPECT_TRUE(std::none_of(grammar.genes.begin(), grammar.genes.end(),
                                 [](const Gene& g) { return g.name.rfind("unroll_", 0) == 0; }));
    }
}

TEST(GrammarFuzz, RandomBytesNeverCrash) {
    Rng rng(7);
    int built = 0;
    int refused = 0;
    for (int round = 0; round < 200; ++round) {
        std::string text = "__global__ void k(int* a) {";
        const std::size_t length = rng.index(200);
        for (std::size_t i = 0; i < length; ++i) text += static_cast<char>(1 + rng.index(126));
        build_or_error(text, {}, built, refused);
    }
    EXPECT_EQ(built + refused, 200);
}

}  // namespace
}  // namespace gi
