#pragma once
// CPU side of the matrix multiply example: random matrices (the inputs) and the product in double
// (the oracle of matmul.cu).
#include <cstdint>
#include <vector>

namespace gi::matmul {

// rows x cols entries in [-1, 1), row-major. Throws std::invalid_argument unless 1 <= rows, cols
// <= 16384.
std::vector<float> make_matrix(int rows, int cols, std::uint64_t seed);

// A (M x K) times B (K x N), row-major.
std::vector<double> matmul_reference(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K);

}  // namespace gi::matmul
