#pragma once
// CPU side of the Gaussian elimination example: a diagonally dominant system with a known solution
// (the input), the elimination in double (the oracle of the whole run), one step of each kernel in
// float (the oracle of one launch) and back substitution.
#include <cstdint>
#include <vector>

namespace gi::elimination {

struct System {
    int n = 0;
    std::vector<float> a;         // n x n, row-major, each diagonal entry above its row's other magnitudes
    std::vector<float> b;         // A x_true
    std::vector<double> x_true;   // in [-1, 1)
};

// Throws std::invalid_argument unless 1 <= n <= 16384.
System make_system(int n, std::uint64_t seed);

// The program's elimination (every column t of every row below t, b too) in double, in place.
void eliminate_reference(std::vector<double>& a, std::vector<double>& b, int n);

// One eliminate_multipliers launch and one eliminate_rows launch, in the kernels' float operations.
void multipliers_reference(const std::vector<float>& a, std::vector<float>& m, int n, int t);
void rows_reference(std::vector<float>& a, std::vector<float>& b, const std::vector<float>& m, int n, int t);

// x from an upper triangular system (entries below the diagonal are not read).
std::vector<double> back_substitute(const std::vector<float>& a, const std::vector<float>& b, int n);

}  // namespace gi::elimination
