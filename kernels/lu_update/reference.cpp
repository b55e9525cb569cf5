#include "lu_update/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::lu_update {

std::vector<float> make_matrix(int n, std::uint64_t seed) {
    if (n < 1 || n > 16384) throw std::invalid_argument("matrix of side " + std::to_string(n) + ": must be 1..16384");
    gi::kernels::SplitMix64 rng(seed * 0xC2B2AE3D27D4EB4Full + 7);
    std::vector<float> a(static_cast<std::size_t>(n) * n);
    for (int i = 0; i < n; ++i) {
        double off = 0;
        for (int j = 0; j < n; ++j) {
            if (i == j) continue;
            const float v = static_cast<float>(rng.uniform(-1, 1));
            a[static_cast<std::size_t>(i) * n + j] = v;
            off += std::abs(v);
        }
        a[static_cast<std::size_t>(i) * n + i] = static_cast<float>(off + rng.uniform(1, 2));
    }
    return a;
}

std::vector<double> lu_reference(const std::vector<float>& a, int n) {
    std::vector<double> lu(a.begin(), a.end());
    for (int k = 0; k < n; ++k) {
        const double pivot = lu[static_cast<std::size_t>(k) * n + k];
        const double* row_k = &lu[static_cast<std::size_t>(k) * n];
        for (int i = k + 1; i < n; ++i) {
            double* row_i = &lu[static_cast<std::size_t>(i) * n];
            const double l = row_i[k] / pivot;
            row_i[k] = l;
            for (int j = k + 1; j < n; ++j) row_i[j] -= l * row_k[j];
        }
    }
    return lu;
}

void trailing_update_reference(std::vector<float>& a, int n, int offset, int block) {
    const std::vector<float> before = a;
    for (int i = offset + block; i < n; ++i)
        for (int j = offset + block; j < n; ++j) {
            float sum = 0.0f;
            for (int t = 0; t < block; ++t)
                sum += before[static_cast<std::size_t>(i) * n + offset + t] * before[static_cast<std::size_t>(offset + t) * n + j];
            a[static_cast<std::size_t>(i) * n + j] -= sum;
        }
}

}  // namespace gi::lu_update
