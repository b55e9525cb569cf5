// The stereo example's CPU side: the synthetic pair generator and the direct reference.
#include <gtest/gtest.h>

#include <stdexcept>

#include "stereo/reference.hpp"

namespace gi::stereo {
namespace {

// True when every pixel of the window around (x, y) sees the same visible surface: there the SSD
// minimum must be the true shift. Near occlusion edges a window mixes surfaces and may not.
bool window_on_one_surface(const StereoPair& pair, int x, int y) {
    const int width = pair.left.width, height = pair.left.height;
    const int d = pair.true_disparity[static_cast<std::size_t>(y) * width + x];
    if (d < 0 || x - kRadius - d < 0 || x + kRadius >= width || y - kRadius < 0 || y + kRadius >= height) return false;
    for (int dy = -kRadius; dy <= kRadius; ++dy) {
        for (int dx = -kRadius; dx <= kRadius; ++dx) {
            if (pair.true_disparity[static_cast<std::size_t>(y + dy) * width + x + dx] != d) return false;
        }
    }
    return true;
}

TEST(StereoReference, RecoversTheKnownDisparityOnMostVisiblePixels) {
    const StereoPair pair = make_stereo_pair(96, 72, 7);
    const DisparityMap map = stereo_reference(pair.left, pair.right);
    long long known = 0, recovered = 0, interior = 0, interior_recovered = 0;
    for (int y = 0; y < map.height; ++y) {
        for (int x = 0; x < map.width; ++x) {
            const std::size_t i = static_cast<std::size_t>(y) * map.width + x;
            if (pair.true_disparity[i] < 0) continue;
            const bool right = map.disparity[i] == static_cast<float>(pair.true_disparity[i]);
            ++known;
            recovered += right;
            if (window_on_one_surface(pair, x, y)) {
                ++interior;
                interior_recovered += right;
            }
        }
    }
    ASSERT_GT(known, static_cast<long long>(map.disparity.size() / 2));
    ASSERT_GT(interior, known / 4);
    EXPECT_GT(static_cast<double>(interior_recovered) / interior, 0.98) << interior_recovered << " of " << interior;
    EXPECT_GT(static_cast<double>(recovered) / known, 0.75) << recovered << " of " << known;
}

TEST(StereoReference, MarksHiddenPixelsAsNoMatchMostOfTheTime) {
    const StereoPair pair = make_stereo_pair(96, 72, 11);
    const DisparityMap map = stereo_reference(pair.left, pair.right);
    long long hidden = 0, no_match = 0;
    for (std::size_t i = 0; i < map.disparity.size(); ++i) {
        // Hidden pixels well inside the image: near the left edge the clamped border can still match.
        if (pair.true_disparity[i] >= 0 || static_cast<int>(i % map.width) < kMaxDisparity) continue;
        ++hidden;
        no_match += map.disparity[i] == -1.0f;
    }
    ASSERT_GT(hidden, 20);
    EXPECT_GT(static_cast<double>(no_match) / hidden, 0.5) << no_match << " of " << hidden;
}

TEST(StereoReference, MinSsdIsTheWindowSsdOfTheChosenDisparity) {
    const StereoPair pair = make_stereo_pair(40, 24, 3);
    const DisparityMap map = stereo_reference(pair.left, pair.right);
    for (int y = 0; y < map.height; y += 5) {
        for (int x = 0; x < map.width; x += 3) {
            const std::size_t i = static_cast<std::size_t>(y) * map.width + x;
            const int d = static_cast<int>(map.disparity[i]);
            if (d < 0) {
                EXPECT_EQ(map.min_ssd[i], kMaxSsd);
                for (int dd = 0; dd <= kMaxDisparity; ++dd) EXPECT_GE(window_ssd(pair.left, pair.right, x, y, dd), kMaxSsd);
                continue;
            }
            EXPECT_EQ(map.min_ssd[i], window_ssd(pair.left, pair.right, x, y, d));
            for (int dd = 0; dd < d; ++dd) EXPECT_GT(window_ssd(pair.left, pair.right, x, y, dd), map.min_ssd[i]);
            for (int dd = d + 1; dd <= kMaxDisparity; ++dd) EXPECT_GE(window_ssd(pair.left, pair.right, x, y, dd), map.min_ssd[i]);
        }
    }
}

TEST(StereoReference, IdenticalImagesGiveDisparityZeroEverywhere) {
    const StereoPair pair = make_stereo_pair(32, 20, 5);
    const DisparityMap map = stereo_reference(pair.left, pair.left);
    for (std::size_t i = 0; i < map.disparity.size(); ++i) {
        ASSERT_EQ(map.disparity[i], 0.0f);
        ASSERT_EQ(map.min_ssd[i], 0);
    }
}

TEST(StereoReference, WindowSsdClampsCoordinatesAtTheBorder) {
    GreyImage left{16, 16, std::vector<std::uint8_t>(256, 10)};
    GreyImage right = left;
    right.pixels[0] = 13;  // only the corner differs; every clamped read of it counts
    // At (0,0) with d=0 the window reads the corner pixel (x,y both clamped) 6x6 times.
    EXPECT_EQ(window_ssd(left, right, 0, 0, 0), 36 * 9);
    EXPECT_EQ(window_ssd(left, right, 15, 15, 0), 0);
}

TEST(StereoReference, GeneratorIsDeterministicAndSeedDependent) {
    const StereoPair a = make_stereo_pair(48, 32, 42);
    const StereoPair b = make_stereo_pair(48, 32, 42);
    const StereoPair c = make_stereo_pair(48, 32, 43);
    EXPECT_EQ(a.left.pixels, b.left.pixels);
    EXPECT_EQ(a.right.pixels, b.right.pixels);
    EXPECT_EQ(a.true_disparity, b.true_disparity);
    EXPECT_NE(a.left.pixels, c.left.pixels);
}

TEST(StereoReference, RejectsBadSizes) {
    EXPECT_THROW(make_stereo_pair(8, 100, 1), std::invalid_argument);
    EXPECT_THROW(make_stereo_pair(100, 9000, 1), std::invalid_argument);
    const StereoPair pair = make_stereo_pair(32, 20, 1);
    GreyImage other{20, 32, pair.left.pixels};
    EXPECT_THROW(stereo_reference(pair.left, other), std::invalid_argument);
    GreyImage broken{32, 20, std::vector<std::uint8_t>(10)};
    EXPECT_THROW(stereo_reference(broken, broken), std::invalid_argument);
}

}  // namespace
}  // namespace gi::stereo
