#pragma once
// CPU side of the stereo example: a synthetic stereo pair with known disparity (the inputs) and a
// plain, direct implementation of what stereo.cu computes (the oracle). Both are deterministic.
#include <cstdint>
#include <vector>

namespace gi::stereo {

// Must equal RADIUS, STEREO_MAXD and STEREO_MAX_SSD in stereo.cu.
inline constexpr int kRadius = 5;
inline constexpr int kMaxDisparity = 50;
inline constexpr int kMaxSsd = 200000;

struct GreyImage {
    int width = 0;
    int height = 0;
    std::vector<std::uint8_t> pixels;  // row after row, no padding

    std::uint8_t at(int x, int y) const { return pixels[static_cast<std::size_t>(y) * width + x]; }
    // The pixel with coordinates clamped into the image (the kernel's border rule).
    std::uint8_t clamped(int x, int y) const;
};

struct StereoPair {
    GreyImage left;
    GreyImage right;
    // Per left pixel: the disparity of the surface seen there, or -1 where that surface is hidden
    // in the right image (occluded or shifted out of it).
    std::vector<int> true_disparity;
};

// A scene of fronto-parallel textured surfaces (a background plane and a few nearer rectangles and
// discs, disparities 2..45) rendered into a left and a right view with a little sensor noise.
// Throws std::invalid_argument unless 16 <= width, height <= 8192.
StereoPair make_stereo_pair(int width, int height, std::uint64_t seed);

struct DisparityMap {
    int width = 0;
    int height = 0;
    std::vector<float> disparity;  // -1, or the smallest d in 0..kMaxDisparity with the least SSD
    std::vector<int> min_ssd;      // that SSD, capped at kMaxSsd
};

// Direct evaluation: for every pixel and disparity, the full 11x11 SSD with clamped coordinates.
// Throws std::invalid_argument when the images differ in size or are empty.
DisparityMap stereo_reference(const GreyImage& left, const GreyImage& right);

// SSD of the window around left pixel (x, y) against the right image shifted by d.
int window_ssd(const GreyImage& left, const GreyImage& right, int x, int y, int d);

}  // namespace gi::stereo
