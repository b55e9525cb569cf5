// How the sanitizer gate groups variants into compute-sanitizer processes (issue 19).
#include <gtest/gtest.h>

#include <set>

#include "cuda/sanitizer_batches.hpp"

namespace gi {
namespace {

using Batches = std::vector<std::vector<std::size_t>>;
const std::vector<std::string> kMem{"memcheck"};
const std::vector<std::string> kAll{"memcheck", "racecheck", "synccheck"};

TEST(SanitizerBatches, SpreadsVariantsEvenlyOverTheProcesses) {
    // 45 memcheck-only variants, 8 processes, at most 8 per batch: 6 per batch, 8 batches.
    const std::vector<std::vector<std::string>> tools(45, kMem);
    const Batches batches = sanitizer_batches(tools, 8, 8);
    ASSERT_EQ(batches.size(), 8u);
    std::set<std::size_t> seen;
    for (const auto& batch : batches) {
        EXPECT_GE(batch.size(), 5u);
        EXPECT_LE(batch.size(), 6u);
        for (std::size_t i : batch) EXPECT_TRUE(seen.insert(i).second) << i << " twice";
    }
    EXPECT_EQ(seen.size(), 45u);
}

TEST(SanitizerBatches, NeverMixesCheckersAndKeepsInputOrder) {
    const std::vector<std::vector<std::string>> tools{kMem, kAll, kMem, kAll, kMem};
    const Batches batches = sanitizer_batches(tools, 1, 8);
    EXPECT_EQ(batches, (Batches{{0, 2, 4}, {1, 3}}));
}

TEST(SanitizerBatches, TheCapBoundsABatchAndOneMeansOneVariantEach) {
    const std::vector<std::vector<std::string>> tools(20, kMem);
    for (const auto& batch : sanitizer_batches(tools, 1, 4)) EXPECT_LE(batch.size(), 4u);
    EXPECT_EQ(sanitizer_batches(tools, 1, 4).size(), 5u);
    const Batches singles = sanitizer_batches(tools, 8, 1);
    ASSERT_EQ(singles.size(), 20u);
    for (std::size_t i = 0; i < singles.size(); ++i) EXPECT_EQ(singles[i], std::vector<std::size_t>{i});
}

TEST(SanitizerBatches, FewVariantsGetAProcessEach) {
    const std::vector<std::vector<std::string>> tools(3, kMem);
    EXPECT_EQ(sanitizer_batches(tools, 8, 8), (Batches{{0}, {1}, {2}}));
    EXPECT_TRUE(sanitizer_batches({}, 8, 8).empty());
}

// With sessions, racecheck's variants go one a batch and first: a session checks a batch's
// variants one after another, and racecheck is the slow checker.
TEST(SanitizerBatches, SlowCheckersGoAloneAndFirst) {
    const std::vector<std::vector<std::string>> tools{kMem, kAll, kMem, kAll, kMem, kAll};
    EXPECT_EQ(sanitizer_batches(tools, 1, 8, "racecheck"), (Batches{{1}, {3}, {5}, {0, 2, 4}}));
    // The others are spread over the processes as before, by their own number.
    const std::vector<std::vector<std::string>> mixed{kAll, kMem, kMem, kMem, kMem};
    EXPECT_EQ(sanitizer_batches(mixed, 2, 8, "racecheck"), (Batches{{0}, {1, 2}, {3, 4}}));
    // Without it (processes of their own, each paying the sanitizer's start-up), batched together.
    EXPECT_EQ(sanitizer_batches(tools, 1, 8), (Batches{{0, 2, 4}, {1, 3, 5}}));
}

// Sessions that run a batch's racecheck variants side by side get them together, still first, at
// most that many to a batch and split evenly.
TEST(SanitizerBatches, SlowCheckersGoTogetherWhenASessionRunsThemAtOnce) {
    const std::vector<std::vector<std::string>> tools{kMem, kAll, kMem, kAll, kMem, kAll};
    EXPECT_EQ(sanitizer_batches(tools, 1, 8, "racecheck", 8), (Batches{{1, 3, 5}, {0, 2, 4}}));
    EXPECT_EQ(sanitizer_batches(tools, 1, 8, "racecheck", 2), (Batches{{1}, {3, 5}, {0, 2, 4}}));
    const std::vector<std::vector<std::string>> seven(7, kAll);
    EXPECT_EQ(sanitizer_batches(seven, 8, 8, "racecheck", 3), (Batches{{0, 1}, {2, 3}, {4, 5, 6}}));
    // Different checkers never share a batch.
    const std::vector<std::string> race_only{"memcheck", "racecheck"};
    EXPECT_EQ(sanitizer_batches({kAll, race_only, kAll}, 1, 8, "racecheck", 8), (Batches{{0, 2}, {1}}));
}

}  // namespace
}  // namespace gi
