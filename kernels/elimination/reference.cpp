#include "elimination/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::elimination {

System make_system(int n, std::uint64_t seed) {
    if (n < 1 || n > 16384) throw std::invalid_argument("system of " + std::to_string(n) + " unknowns: must be 1..16384");
    gi::kernels::SplitMix64 rng(seed * 0x165667B19E3779F9ull + 13);
    System s{n, std::vector<float>(static_cast<std::size_t>(n) * n), std::vector<float>(n), std::vector<double>(n)};
    for (int i = 0; i < n; ++i) {
        double off = 0;
        for (int j = 0; j < n; ++j) {
            if (i == j) continue;
            const float v = static_cast<float>(rng.uniform(-1, 1));
            s.a[static_cast<std::size_t>(i) * n + j] = v;
            off += std::abs(v);
        }
        s.a[static_cast<std::size_t>(i) * n + i] = static_cast<float>(off + rng.uniform(1, 2));
    }
    for (double& x : s.x_true) x = rng.uniform(-1, 1);
    for (int i = 0; i < n; ++i) {
        double sum = 0;
        for (int j = 0; j < n; ++j) sum += s.a[static_cast<std::size_t>(i) * n + j] * s.x_true[j];
        s.b[i] = static_cast<float>(sum);
    }
    return s;
}

void eliminate_reference(std::vector<double>& a, std::vector<double>& b, int n) {
    for (int t = 0; t + 1 < n; ++t) {
        const double* row_t = &a[static_cast<std::size_t>(t) * n];
        for (int i = t + 1; i < n; ++i) {
            double* row_i = &a[static_cast<std::size_t>(i) * n];
            const double factor = row_i[t] / row_t[t];
            for (int j = t; j < n; ++j) row_i[j] -= factor * row_t[j];
            b[i] -= factor * b[t];
        }
    }
}

void multipliers_reference(const std::vector<float>& a, std::vector<float>& m, int n, int t) {
    for (int i = t + 1; i < n; ++i)
        m[static_cast<std::size_t>(i) * n + t] = a[static_cast<std::size_t>(i) * n + t] / a[static_cast<std::size_t>(t) * n + t];
}

void rows_reference(std::vector<float>& a, std::vector<float>& b, const std::vector<float>& m, int n, int t) {
    for (int i = t + 1; i < n; ++i) {
        const float factor = m[static_cast<std::size_t>(i) * n + t];
        for (int j = t; j < n; ++j) a[static_cast<std::size_t>(i) * n + j] -= factor * a[static_cast<std::size_t>(t) * n + j];
        b[i] -= factor * b[t];
    }
}

std::vector<double> back_substitute(const std::vector<float>& a, const std::vector<float>& b, int n) {
    std::vector<double> x(n);
    for (int i = n - 1; i >= 0; --i) {
        double sum = b[i];
        for (int j = i + 1; j < n; ++j) sum -= static_cast<double>(a[static_cast<std::size_t>(i) * n + j]) * x[j];
        x[i] = sum / a[static_cast<std::size_t>(i) * n + i];
    }
    return x;
}

}  // namespace gi::elimination
