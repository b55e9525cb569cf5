#pragma once
// CPU side of the blocked LU example: a diagonally dominant matrix (factors without pivoting), the
// LU factors in double (the oracle of the whole factorisation) and one trailing update in the
// kernel's float operations (the oracle of one lu_trailing_update launch).
#include <cstdint>
#include <vector>

namespace gi::lu_update {

// n x n, row-major: off-diagonal entries in [-1, 1), each diagonal entry larger than the sum of its
// row's other magnitudes. Throws std::invalid_argument unless 1 <= n <= 16384.
std::vector<float> make_matrix(int n, std::uint64_t seed);

// L (below the diagonal, unit diagonal implied) and U (on and above it) in one matrix, computed in
// double by unblocked Doolittle elimination.
std::vector<double> lu_reference(const std::vector<float>& a, int n);

// What lu_trailing_update does at `offset` with blocks of `block`: every entry (i, j) with i, j >=
// offset + block loses sum_t a[i][offset + t] * a[offset + t][j] over t < block, summed in float
// in t order.
void trailing_update_reference(std::vector<float>& a, int n, int offset, int block);

}  // namespace gi::lu_update
