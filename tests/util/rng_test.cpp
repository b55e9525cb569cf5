#include "util/rng.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi {
namespace {

TEST(Rng, SameSeedGivesSameSequence) {
    Rng a(42), b(42), c(43);
    bool differs_from_other_seed = false;
    for (int i = 0; i < 100; ++i) {
        const auto x = a.next();
        EXPECT_EQ(x, b.next());
        differs_from_other_seed |= (x != c.next());
    }
    EXPECT_TRUE(differs_from_other_seed);
}

TEST(Rng, UniformIntStaysInRangeAndHitsBothEnds) {
    Rng rng(7);
    bool saw_lo = false, saw_hi = false;
    for (int i = 0; i < 2000; ++i) {
        const auto v = rng.uniform_int(-3, 3);
        ASSERT_GE(v, -3);
        ASSERT_LE(v, 3);
        saw_lo |= v == -3;
        saw_hi |= v == 3;
    }
    EXPECT_TRUE(saw_lo);
    EXPECT_TRUE(saw_hi);
    EXPECT_THROW(rng.uniform_int(2, 1), Error);
}

TEST(Rng, WeightedIndexNeverPicksZeroWeight) {
    Rng rng(1);
    std::vector<double> weights{0, 1, 0, 1000};
    int counts[4] = {};
    for (int i = 0; i < 5000; ++i) ++counts[rng.weighted_index(weights)];
    EXPECT_EQ(counts[0], 0);
    EXPECT_EQ(counts[2], 0);
    EXPECT_GT(counts[3], counts[1] * 100);
    EXPECT_THROW(rng.weighted_index({0, 0}), Error);
}

TEST(Rng, SaveAndRestoreContinueTheSameSequence) {
    Rng rng(99);
    for (int i = 0; i < 10; ++i) rng.next();
    const std::string state = rng.save();
    const auto expected = rng.next();
    Rng other(1);
    other.restore(state);
    EXPECT_EQ(other.next(), expected);
    EXPECT_THROW(other.restore("not a state"), Error);
}

TEST(Rng, StreamsOfOneSeedAreRepeatableAndApart) {
    Rng a = Rng::stream(7, 0), again = Rng::stream(7, 0), next = Rng::stream(7, 1), other = Rng::stream(8, 0);
    int same_as_next = 0, same_as_other = 0;
    for (int i = 0; i < 100; ++i) {
        const auto x = a.next();
        EXPECT_EQ(x, again.next());
        same_as_next += x == next.next();
        same_as_other += x == other.next();
    }
    EXPECT_EQ(same_as_next, 0);
    EXPECT_EQ(same_as_other, 0);
}

}  // namespace
}  // namespace gi
