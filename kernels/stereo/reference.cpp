#include "stereo/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::stereo {
namespace {

// A fronto-parallel surface: every point of it has the same disparity.
struct Surface {
    enum class Shape { Everywhere, Rectangle, Disc } shape = Shape::Everywhere;
    int disparity = 0;
    double cx = 0, cy = 0, rx = 0, ry = 0;  // centre and half sizes (disc: radii)
    std::vector<std::uint8_t> texture;     // in left-image coordinates, texture_width wide
    int texture_width = 0;

    bool covers(int x, int y) const {
        if (shape == Shape::Everywhere) return true;
        const double dx = (x - cx) / rx;
        const double dy = (y - cy) / ry;
        if (shape == Shape::Rectangle) return std::abs(dx) <= 1.0 && std::abs(dy) <= 1.0;
        return dx * dx + dy * dy <= 1.0;
    }
    std::uint8_t texel(int x, int y) const {
        return texture[static_cast<std::size_t>(y) * texture_width + x];
    }
};

// Box-blurred white noise with its contrast stretched back: fine structure at the scale of the
// 11x11 window, so the true shift is the clear SSD minimum.
std::vector<std::uint8_t> make_texture(int width, int height, kernels::SplitMix64& rng) {
    std::vector<int> noise(static_cast<std::size_t>(width) * height);
    for (int& value : noise) value = rng.uniform_int(0, 255);
    std::vector<std::uint8_t> texture(noise.size());
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            int sum = 0;
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const int xx = std::clamp(x + dx, 0, width - 1);
                    const int yy = std::clamp(y + dy, 0, height - 1);
                    sum += noise[static_cast<std::size_t>(yy) * width + xx];
                }
            }
            const int stretched = 128 + 2 * (sum / 9 - 128);
            texture[static_cast<std::size_t>(y) * width + x] = static_cast<std::uint8_t>(std::clamp(stretched, 0, 255));
        }
    }
    return texture;
}

// The nearest surface covering left-image point (x, y); surfaces are sorted far to near.
const Surface& front_surface(const std::vector<Surface>& surfaces, int x, int y) {
    for (auto it = surfaces.rbegin(); it != surfaces.rend(); ++it) {
        if (it->covers(x, y)) return *it;
    }
    return surfaces.front();
}

std::uint8_t with_noise(int value, kernels::SplitMix64& rng) {
    return static_cast<std::uint8_t>(std::clamp(value + rng.uniform_int(-2, 2), 0, 255));
}

}  // namespace

std::uint8_t GreyImage::clamped(int x, int y) const {
    return at(std::clamp(x, 0, width - 1), std::clamp(y, 0, height - 1));
}

StereoPair make_stereo_pair(int width, int height, std::uint64_t seed) {
    if (width < 16 || height < 16 || width > 8192 || height > 8192) {
        throw std::invalid_argument("make_stereo_pair: image size " + std::to_string(width) + "x" + std::to_string(height) +
                    " is outside 16..8192 on a side; choose a size in that range");
    }
    kernels::SplitMix64 rng(seed);
    const int texture_width = width + kMaxDisparity + 1;

    std::vector<Surface> surfaces;
    Surface background;
    background.disparity = rng.uniform_int(2, 10);
    surfaces.push_back(background);
    const int objects = 3 + rng.uniform_int(0, 3);
    for (int n = 0; n < objects; ++n) {
        Surface s;
        s.shape = rng.uniform01() < 0.5 ? Surface::Shape::Rectangle : Surface::Shape::Disc;
        s.disparity = rng.uniform_int(12, 45);
        s.cx = rng.uniform(0.1, 0.9) * width;
        s.cy = rng.uniform(0.1, 0.9) * height;
        s.rx = rng.uniform(0.06, 0.2) * width;
        s.ry = rng.uniform(0.06, 0.25) * height;
        surfaces.push_back(s);
    }
    std::stable_sort(surfaces.begin(), surfaces.end(),
                     [](const Surface& a, const Surface& b) { return a.disparity < b.disparity; });
    for (Surface& s : surfaces) {
        s.texture_width = texture_width;
        s.texture = make_texture(texture_width, height, rng);
    }

    StereoPair pair;
    pair.left = {width, height, std::vector<std::uint8_t>(static_cast<std::size_t>(width) * height)};
    pair.right = pair.left;
    pair.true_disparity.assign(pair.left.pixels.size(), -1);
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const std::size_t index = static_cast<std::size_t>(y) * width + x;
            // Left view: the nearest surface at (x, y).
            const Surface& seen = front_surface(surfaces, x, y);
            pair.left.pixels[index] = with_noise(seen.texel(x, y), rng);
            // Right view: right pixel x shows left-coordinate point x + d of a surface with
            // disparity d; the nearest surface that covers its point wins.
            const Surface* visible = &surfaces.front();
            for (auto it = surfaces.rbegin(); it != surfaces.rend(); ++it) {
                if (it->covers(x + it->disparity, y)) {
                    visible = &*it;
                    break;
                }
            }
            pair.right.pixels[index] = with_noise(visible->texel(x + visible->disparity, y), rng);
        }
    }
    // A left pixel's match is visible when its surface is the one the right view shows there.
    for (int y = 0; y < height; ++y) {
        for (int x = 0; x < width; ++x) {
            const Surface& seen = front_surface(surfaces, x, y);
            const int xr = x - seen.disparity;
            if (xr < 0) continue;
            const Surface* visible = &surfaces.front();
            for (auto it = surfaces.rbegin(); it != surfaces.rend(); ++it) {
                if (it->covers(xr + it->disparity, y)) {
                    visible = &*it;
                    break;
                }
            }
            if (visible == &seen) pair.true_disparity[static_cast<std::size_t>(y) * width + x] = seen.disparity;
        }
    }
    return pair;
}

int window_ssd(const GreyImage& left, const GreyImage& right, int x, int y, int d) {
    int sum = 0;
    for (int dy = -kRadius; dy <= kRadius; ++dy) {
        for (int dx = -kRadius; dx <= kRadius; ++dx) {
            const int diff = int{left.clamped(x + dx, y + dy)} - int{right.clamped(x + dx - d, y + dy)};
            sum += diff * diff;
        }
    }
    return sum;
}

DisparityMap stereo_reference(const GreyImage& left, const GreyImage& right) {
    if (left.width != right.width || left.height != right.height) {
        throw std::invalid_argument("stereo_reference: left image is " + std::to_string(left.width) + "x" +
                    std::to_string(left.height) + " but right image is " + std::to_string(right.width) + "x" +
                    std::to_string(right.height) + "; pass a pair of the same size");
    }
    if (left.width <= 0 || left.height <= 0 ||
        left.pixels.size() != static_cast<std::size_t>(left.width) * left.height ||
        right.pixels.size() != left.pixels.size()) {
        throw std::invalid_argument("stereo_reference: empty image or pixel count that does not match width x height");
    }
    DisparityMap map;
    map.width = left.width;
    map.height = left.height;
    map.disparity.assign(left.pixels.size(), -1.0f);
    map.min_ssd.assign(left.pixels.size(), kMaxSsd);
    for (int y = 0; y < left.height; ++y) {
        for (int x = 0; x < left.width; ++x) {
            const std::size_t index = static_cast<std::size_t>(y) * left.width + x;
            for (int d = 0; d <= kMaxDisparity; ++d) {
                const int ssd = window_ssd(left, right, x, y, d);
                // Strictly smaller: the smallest disparity wins ties, as in the kernel.
                if (ssd < map.min_ssd[index]) {
                    map.min_ssd[index] = ssd;
                    map.disparity[index] = static_cast<float>(d);
                }
            }
        }
    }
    return map;
}

}  // namespace gi::stereo
