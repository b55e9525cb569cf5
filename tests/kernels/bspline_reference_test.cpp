// The B-spline example's CPU side: the squashed-ball generator and the block-structured reference,
// checked against a naive evaluation and against what cubic splines must reproduce.
#include <gtest/gtest.h>

#include <cmath>

#include "bspline/reference.hpp"
#include "util/error.hpp"

namespace gi::bspline {
namespace {

TEST(BsplineReference, AgreesWithNaiveEvaluationOfEveryVoxel) {
    const DeformationCase c = make_case(23, 5);
    ASSERT_FALSE(c.active_blocks.empty());
    for (bool bspline : {true, false}) {
        const auto out = deformation_reference(c, bspline);
        ASSERT_EQ(out.size(), c.active_blocks.size() * 25);
        for (std::size_t n = 0; n < c.active_blocks.size(); ++n) {
            const auto [x, jb, kb] = decode_block(c.active_blocks[n], c.image_x, c.image_y);
            for (int v = 0; v < kSpacing; ++v) {
                for (int u = 0; u < kSpacing; ++u) {
                    const auto naive = displacement_at(c, x, jb * kSpacing + u, kb * kSpacing + v, bspline);
                    for (int a = 0; a < 3; ++a) ASSERT_NEAR(out[n * 25 + v * 5 + u][a], naive[a], 1e-12);
                }
            }
        }
    }
}

TEST(BsplineReference, BasisIsAPartitionOfUnity) {
    for (double t : {0.0, 0.2, 0.4, 0.6, 0.8, 0.33}) {
        for (bool bspline : {true, false}) {
            const auto w = cubic_basis(t, bspline);
            EXPECT_NEAR(w[0] + w[1] + w[2] + w[3], 1.0, 1e-15) << t;
            if (bspline) {
                for (double wi : w) EXPECT_GE(wi, 0.0);
            }
        }
    }
    const auto at_node = cubic_basis(0.0, false);  // Catmull-Rom interpolates its nodes
    EXPECT_DOUBLE_EQ(at_node[1], 1.0);
    EXPECT_DOUBLE_EQ(at_node[0] + at_node[2] + at_node[3], 0.0);
}

// Cubic splines reproduce linear functions: control points displaced by a linear function of
// their position give voxels displaced by the same function of theirs.
TEST(BsplineReference, ReproducesLinearDisplacementFields) {
    DeformationCase c = make_case(20, 9);
    for (int k = 0; k < c.grid_z; ++k) {
        for (int j = 0; j < c.grid_y; ++j) {
            for (int i = 0; i < c.grid_x; ++i) {
                const double px = (i - 1) * kSpacing, py = (j - 1) * kSpacing, pz = (k - 1) * kSpacing;
                Float4& p = c.control_points[(static_cast<std::size_t>(k) * c.grid_y + j) * c.grid_x + i];
                p = {static_cast<float>(0.5 + 0.25 * px), static_cast<float>(-0.125 * py + 0.5 * pz),
                     static_cast<float>(2.0), 0.0f};
            }
        }
    }
    for (bool bspline : {true, false}) {
        const auto out = deformation_reference(c, bspline);
        for (std::size_t n = 0; n < c.active_blocks.size(); ++n) {
            const auto [x, jb, kb] = decode_block(c.active_blocks[n], c.image_x, c.image_y);
            for (int v = 0; v < kSpacing; ++v) {
                for (int u = 0; u < kSpacing; ++u) {
                    const double y = jb * kSpacing + u, z = kb * kSpacing + v;
                    const auto& d = out[n * 25 + v * 5 + u];
                    ASSERT_NEAR(d[0], 0.5 + 0.25 * x, 1e-9);
                    ASSERT_NEAR(d[1], -0.125 * y + 0.5 * z, 1e-9);
                    ASSERT_NEAR(d[2], 2.0, 1e-9);
                }
            }
        }
    }
}

TEST(BsplineReference, CatmullRomPassesThroughControlPoints) {
    const DeformationCase c = make_case(20, 4);
    for (int x = 0; x < 20; x += kSpacing) {
        for (int y = 0; y < 20; y += kSpacing) {
            const auto d = displacement_at(c, x, y, 10, false);
            const Float4& p = c.control_points[(static_cast<std::size_t>(10 / kSpacing + 1) * c.grid_y + y / kSpacing + 1) *
                                                   c.grid_x + x / kSpacing + 1];
            EXPECT_NEAR(d[0], p.x, 1e-6);
            EXPECT_NEAR(d[2], p.z, 1e-6);
        }
    }
}

TEST(BsplineReference, GeneratorMakesASquashedBallOfTheSeedsSize) {
    const DeformationCase c = make_case(217, 1);
    EXPECT_EQ(c.grid_x, 47);  // seed 001: 47^3 control points for a 217^3 image
    const double ball = 4.0 / 3.0 * M_PI * 70.0 * 70.0 * 70.0;
    EXPECT_GT(c.active_voxels, 0.8 * ball);
    EXPECT_LT(c.active_voxels, 1.2 * ball);
    // Blocks cover the ball with some spill at its surface.
    EXPECT_GE(c.active_blocks.size() * 25, static_cast<std::size_t>(c.active_voxels));
    for (std::size_t n = 1; n < c.active_blocks.size(); ++n) ASSERT_LT(c.active_blocks[n - 1], c.active_blocks[n]);
}

TEST(BsplineReference, GeneratorIsDeterministicAndSeedDependent) {
    const DeformationCase a = make_case(30, 8), b = make_case(30, 8), other = make_case(30, 9);
    EXPECT_EQ(a.active_blocks, b.active_blocks);
    ASSERT_EQ(a.control_points.size(), other.control_points.size());
    EXPECT_EQ(a.control_points[7].x, b.control_points[7].x);
    EXPECT_NE(a.control_points[7].x, other.control_points[7].x);
}

TEST(BsplineReference, BlockCodesRoundTrip) {
    for (int x : {0, 5, 216}) {
        for (int jb : {0, 17, 43}) {
            for (int kb : {0, 43}) {
                const auto decoded = decode_block(encode_block(x, jb, kb, 217, 217), 217, 217);
                EXPECT_EQ(decoded, (std::array<int, 3>{x, jb, kb}));
            }
        }
    }
}

TEST(BsplineReference, RejectsBadCases) {
    EXPECT_THROW(make_case(9, 1), Error);
    EXPECT_THROW(make_case(1001, 1), Error);
    DeformationCase c = make_case(15, 2);
    DeformationCase short_grid = c;
    short_grid.control_points.pop_back();
    EXPECT_THROW(deformation_reference(short_grid, true), Error);
    DeformationCase wrong_grid = c;
    wrong_grid.grid_x += 1;
    EXPECT_THROW(deformation_reference(wrong_grid, true), Error);
    DeformationCase bad_code = c;
    bad_code.active_blocks.push_back(encode_block(0, 0, 99, 15, 15));
    EXPECT_THROW(deformation_reference(bad_code, true), Error);
}

}  // namespace
}  // namespace gi::bspline
