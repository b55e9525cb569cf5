// kernels/matmul: the CPU reference multiplies (by hand on a small product), and matmul.cu itself,
// run on the CPU emulator through both instantiations, matches it on sizes that leave partial tiles.
#include <gtest/gtest.h>

#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "matmul/reference.hpp"

namespace gi::matmul {
namespace {

TEST(MatmulReference, ASmallProductByHand) {
    // (1 2 3; 4 5 6) x (1 0; 0 1; 1 1) = (4 5; 10 11)
    const std::vector<float> A{1, 2, 3, 4, 5, 6}, B{1, 0, 0, 1, 1, 1};
    EXPECT_EQ(matmul_reference(A, B, 2, 2, 3), (std::vector<double>{4, 5, 10, 11}));
}

TEST(MatmulReference, MatricesAreSeeded) {
    EXPECT_EQ(make_matrix(5, 7, 1), make_matrix(5, 7, 1));
    EXPECT_NE(make_matrix(5, 7, 1), make_matrix(5, 7, 2));
    for (float v : make_matrix(9, 9, 3)) ASSERT_TRUE(v >= -1 && v < 1);
    EXPECT_THROW(make_matrix(0, 7, 1), std::invalid_argument);
}

TEST(MatmulEmulated, BothInstantiationsMatchTheReference) {
    ASSERT_GE(emu::matmul_configs().size(), 1u);
    for (auto [M, N, K] : {std::tuple{40, 50, 37}, std::tuple{32, 32, 32}, std::tuple{1, 3, 70}}) {
        const std::vector<float> A = make_matrix(M, K, 1), B = make_matrix(K, N, 2);
        const std::vector<double> expected = matmul_reference(A, B, M, N, K);
        for (const emu::MatmulConfig& config : emu::matmul_configs()) {
            for (int tile : {16, 32}) {
                for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                    SCOPED_TRACE(config.name + " tile " + std::to_string(tile) + " " + std::to_string(M) + "x" +
                                 std::to_string(N) + "x" + std::to_string(K) + (order == emu::Order::Forward ? " forward" : " reverse"));
                    const std::vector<float> got = config.run(A, B, M, N, K, tile, order);
                    long long bad = 0;
                    for (std::size_t i = 0; i < got.size(); ++i)
                        if (!(std::abs(got[i] - expected[i]) <= 1e-4) && bad++ < 3)
                            ADD_FAILURE() << "C " << i << ": kernel " << got[i] << ", reference " << expected[i];
                    EXPECT_EQ(bad, 0);
                }
            }
        }
    }
}

}  // namespace
}  // namespace gi::matmul
