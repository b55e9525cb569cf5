// kernels/aniso_diffusion: the CPU reference is SRAD (flat regions diffuse freely, edges stop the
// diffusion, the image's total is conserved, speckle drops), and aniso_diffusion.cu itself, run on
// the CPU emulator, matches it output by output on images that leave partial tiles.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "aniso_diffusion/reference.hpp"
#include "emulator/corpus_kernels.hpp"

namespace gi::aniso_diffusion {
namespace {

TEST(AnisoDiffusionReference, AFlatImageHasZeroDifferencesAndFullDiffusion) {
    const int rows = 6, cols = 9;
    std::vector<float> image(rows * cols, 1.5f);
    const Coefficients k = coefficients_reference(image, rows, cols, 0.2f);
    for (std::size_t i = 0; i < image.size(); ++i) {
        EXPECT_EQ(k.d_north[i], 0.0f);
        EXPECT_EQ(k.d_east[i], 0.0f);
        EXPECT_EQ(k.q_squared[i], 0.0f);
        EXPECT_EQ(k.coefficient[i], 1.0f) << "below the speckle scale: c is clamped to 1";
    }
    update_reference(image, k, rows, cols, 0.5f);
    for (float v : image) EXPECT_EQ(v, 1.5f);
}

TEST(AnisoDiffusionReference, TheSpeckleScaleIsVarianceOverMeanSquared) {
    const int rows = 4, cols = 4;
    std::vector<float> image(rows * cols);
    for (int i = 0; i < rows * cols; ++i) image[i] = i % 2 ? 3.0f : 1.0f;  // mean 2, variance 1
    EXPECT_FLOAT_EQ(speckle_scale(image, rows, cols), 0.25f);
}

TEST(AnisoDiffusionReference, AnEdgeDiffusesLessThanFlatSpeckle) {
    const int rows = 20, cols = 20;
    std::vector<float> image(rows * cols);
    // A strong vertical edge through the middle of mild speckle.
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) image[r * cols + c] = (c < 10 ? 1.2f : 2.6f) * (1 + 0.02f * ((r * 7 + c * 3) % 5));
    // The speckle scale of the flat parts (the corner region here would take in the edge).
    const Coefficients k = coefficients_reference(image, rows, cols, 0.01f);
    EXPECT_LT(k.coefficient[10 * cols + 9], 0.2f);
    EXPECT_GT(k.coefficient[10 * cols + 4], 0.8f);
}

TEST(AnisoDiffusionReference, IterationsConserveTheTotalAndReduceSpeckle) {
    const int rows = 48, cols = 40;
    std::vector<float> image = make_ultrasound_image(rows, cols, 11);
    for (float v : image) {
        ASSERT_GE(v, 1.0f);
        ASSERT_LE(v, 2.7183f);
    }
    const double total = std::accumulate(image.begin(), image.end(), 0.0);
    const float q0 = speckle_scale(image, rows, cols);
    for (int it = 0; it < 10; ++it)
        update_reference(image, coefficients_reference(image, rows, cols, speckle_scale(image, rows, cols)), rows, cols,
                         0.5f);
    EXPECT_NEAR(std::accumulate(image.begin(), image.end(), 0.0), total, 1e-5 * total);
    EXPECT_LT(speckle_scale(image, rows, cols), 0.5f * q0);
}

TEST(AnisoDiffusionReference, TheImageIsSeeded) {
    EXPECT_EQ(make_ultrasound_image(30, 20, 1), make_ultrasound_image(30, 20, 1));
    EXPECT_NE(make_ultrasound_image(30, 20, 1), make_ultrasound_image(30, 20, 2));
    EXPECT_THROW(make_ultrasound_image(1, 20, 1), std::invalid_argument);
}

void expect_near_all(const std::vector<float>& got, const std::vector<float>& expected, const std::string& what) {
    ASSERT_EQ(got.size(), expected.size()) << what;
    long long bad = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (!(std::abs(got[i] - expected[i]) <= 1e-5f * (1 + std::abs(expected[i]))) && bad++ < 3)
            ADD_FAILURE() << what << " " << i << ": kernel " << got[i] << ", reference " << expected[i];
    EXPECT_EQ(bad, 0) << what;
}

TEST(AnisoDiffusionEmulated, EveryConfigurationMatchesTheReferenceOverTwoIterations) {
    ASSERT_GE(emu::aniso_diffusion_configs().size(), 2u);
    for (auto [rows, cols] : {std::pair{37, 29}, std::pair{16, 16}, std::pair{2, 19}}) {
        const std::vector<float> start = make_ultrasound_image(rows, cols, 5);
        for (const emu::AnisoDiffusionConfig& config : emu::aniso_diffusion_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " " + std::to_string(rows) + "x" + std::to_string(cols) +
                             (order == emu::Order::Forward ? " forward" : " reverse"));
                std::vector<float> got = start, expected = start;
                for (int it = 0; it < 2; ++it) {
                    const float q0 = speckle_scale(expected, rows, cols);
                    const Coefficients got_k = config.coefficients(got, rows, cols, q0, order);
                    const Coefficients expected_k = coefficients_reference(expected, rows, cols, q0);
                    expect_near_all(got_k.d_north, expected_k.d_north, "d_north");
                    expect_near_all(got_k.d_south, expected_k.d_south, "d_south");
                    expect_near_all(got_k.d_west, expected_k.d_west, "d_west");
                    expect_near_all(got_k.d_east, expected_k.d_east, "d_east");
                    expect_near_all(got_k.coefficient, expected_k.coefficient, "coefficient");
                    expect_near_all(got_k.q_squared, expected_k.q_squared, "q_squared");
                    config.update(got, got_k, rows, cols, 0.5f, order);
                    update_reference(expected, expected_k, rows, cols, 0.5f);
                    expect_near_all(got, expected, "image");
                }
            }
        }
    }
}

}  // namespace
}  // namespace gi::aniso_diffusion
