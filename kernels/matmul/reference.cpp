#include "matmul/reference.hpp"

#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::matmul {

std::vector<float> make_matrix(int rows, int cols, std::uint64_t seed) {
    if (rows < 1 || cols < 1 || rows > 16384 || cols > 16384) {
        throw std::invalid_argument("matrix of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                    ": each side must be 1..16384");
    }
    gi::kernels::SplitMix64 rng(seed * 0x94D049BB133111EBull + 19);
    std::vector<float> m(static_cast<std::size_t>(rows) * cols);
    for (float& v : m) v = static_cast<float>(rng.uniform(-1, 1));
    return m;
}

std::vector<double> matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K) {
    std::vector<double> C(static_cast<std::size_t>(M) * N, 0.0);
    for (int i = 0; i < M; ++i)
        for (int k = 0; k < K; ++k) {
            const double a = A[static_cast<std::size_t>(i) * K + k];
            for (int j = 0; j < N; ++j) C[static_cast<std::size_t>(i) * N + j] += a * B[static_cast<std::size_t>(k) * N + j];
        }
    return C;
}

}  // namespace gi::matmul
