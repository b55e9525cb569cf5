// kernels/lu_update: the CPU reference factors (L U gives the matrix back; the trailing update is
// the Schur complement step), and lu_update.cu itself, run on the CPU emulator, gives the same
// factors through its three kernels and the same trailing update launch by launch.
#include <gtest/gtest.h>

#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "lu_update/reference.hpp"

namespace gi::lu_update {
namespace {

TEST(LuUpdateReference, TheFactorsMultiplyBackToTheMatrix) {
    const int n = 20;
    const std::vector<float> a = make_matrix(n, 3);
    const std::vector<double> lu = lu_reference(a, n);
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0;
            for (int t = 0; t <= std::min(i, j); ++t) sum += (t == i ? 1.0 : lu[i * n + t]) * lu[t * n + j];
            EXPECT_NEAR(sum, a[i * n + j], 1e-9 * (1 + std::abs(a[i * n + j]))) << i << "," << j;
        }
}

TEST(LuUpdateReference, TheMatrixIsDiagonallyDominantAndSeeded) {
    const int n = 30;
    const std::vector<float> a = make_matrix(n, 4);
    EXPECT_EQ(a, make_matrix(n, 4));
    EXPECT_NE(a, make_matrix(n, 5));
    for (int i = 0; i < n; ++i) {
        double off = 0;
        for (int j = 0; j < n; ++j) off += i == j ? 0 : std::abs(a[i * n + j]);
        EXPECT_GT(a[i * n + i], off + 0.99);
    }
    EXPECT_THROW(make_matrix(0, 1), std::invalid_argument);
}

TEST(LuUpdateReference, TheTrailingUpdateIsTheSchurComplementStep) {
    // After factoring the first block by hand (the reference's first `block` columns), the
    // trailing update leaves the trailing submatrix equal to the reference's at that point.
    const int n = 12, block = 4;
    std::vector<float> a = make_matrix(n, 6);
    std::vector<double> partial(a.begin(), a.end());
    for (int k = 0; k < block; ++k)
        for (int i = k + 1; i < n; ++i) {
            partial[i * n + k] /= partial[k * n + k];
            // Only the panels: rows and columns of the first block.
            for (int j = k + 1; j < n; ++j)
                if (i < block || j < block) partial[i * n + j] -= partial[i * n + k] * partial[k * n + j];
        }
    std::vector<float> panels(partial.begin(), partial.end());
    std::vector<double> full(a.begin(), a.end());
    for (int k = 0; k < block; ++k)
        for (int i = k + 1; i < n; ++i) {
            full[i * n + k] /= full[k * n + k];
            for (int j = k + 1; j < n; ++j) full[i * n + j] -= full[i * n + k] * full[k * n + j];
        }
    trailing_update_reference(panels, n, 0, block);
    for (int i = block; i < n; ++i)
        for (int j = block; j < n; ++j) EXPECT_NEAR(panels[i * n + j], full[i * n + j], 1e-4) << i << "," << j;
}

TEST(LuUpdateEmulated, EveryConfigurationFactorsAsTheReference) {
    ASSERT_GE(emu::lu_update_configs().size(), 2u);
    for (const emu::LuUpdateConfig& config : emu::lu_update_configs()) {
        for (int blocks : {1, 2, 4}) {
            const int n = blocks * config.block;
            const std::vector<float> a = make_matrix(n, n);
            const std::vector<double> expected = lu_reference(a, n);
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " n=" + std::to_string(n) + (order == emu::Order::Forward ? " forward" : " reverse"));
                const std::vector<float> got = config.factor(a, n, order);
                long long bad = 0;
                for (std::size_t k = 0; k < got.size(); ++k)
                    if (!(std::abs(got[k] - expected[k]) <= 1e-5 + 1e-5 * std::abs(expected[k])) && bad++ < 3)
                        ADD_FAILURE() << "entry " << k << ": kernel " << got[k] << ", reference " << expected[k];
                EXPECT_EQ(bad, 0);
            }
        }
    }
}

TEST(LuUpdateEmulated, EveryConfigurationUpdatesTheTrailingMatrixAsTheReference) {
    for (const emu::LuUpdateConfig& config : emu::lu_update_configs()) {
        const int n = 4 * config.block;
        for (int offset : {0, config.block, 2 * config.block}) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " offset " + std::to_string(offset));
                std::vector<float> expected = make_matrix(n, 9);
                const std::vector<float> got = config.trailing_update(expected, n, offset, order);
                trailing_update_reference(expected, n, offset, config.block);
                EXPECT_EQ(got, expected);
            }
        }
    }
}

}  // namespace
}  // namespace gi::lu_update
