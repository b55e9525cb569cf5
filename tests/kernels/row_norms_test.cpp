// kernels/row_norms: the CPU reference is the norm it claims to be (scales with its row, matches a
// direct sum) and the inputs' row scales spread as documented; sizes out of range are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "row_norms/reference.hpp"

namespace gi::row_norms {
namespace {

TEST(RowNormsReference, EachNormIsTheSquareRootOfItsRowsSumOfSquares) {
    const NormProblem p = make_norm_problem(50, 37, 5);
    ASSERT_EQ(p.matrix.size(), 50u * 37);
    const std::vector<float> norms = row_norms_reference(p);
    ASSERT_EQ(norms.size(), 50u);
    float smallest = INFINITY, largest = 0;
    for (int r = 0; r < 50; ++r) {
        double sum = 0;
        for (int c = 0; c < 37; ++c) sum += double(p.matrix[r * 37 + c]) * p.matrix[r * 37 + c];
        EXPECT_NEAR(norms[r], std::sqrt(sum), 1e-6 * std::sqrt(sum)) << r;
        smallest = std::min(smallest, norms[r]);
        largest = std::max(largest, norms[r]);
    }
    EXPECT_GT(largest / smallest, 10.0f) << "the rows' scales span orders of magnitude";
    // The same seed gives the same matrix; another seed another.
    EXPECT_EQ(make_norm_problem(50, 37, 5).matrix, p.matrix);
    EXPECT_NE(make_norm_problem(50, 37, 6).matrix, p.matrix);
}

TEST(RowNormsReference, RefusesSizesOutOfRange) {
    EXPECT_THROW(make_norm_problem(0, 10, 1), std::invalid_argument);
    EXPECT_THROW(make_norm_problem(10, 0, 1), std::invalid_argument);
    EXPECT_THROW(make_norm_problem(1 << 22, 1 << 6, 1), std::invalid_argument);  // 2^28 entries
    EXPECT_NO_THROW(make_norm_problem(1, 1, 1));
}

}  // namespace
}  // namespace gi::row_norms
