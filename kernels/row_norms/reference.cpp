#include "row_norms/reference.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::row_norms {

NormProblem make_norm_problem(int rows, int cols, std::uint64_t seed) {
    if (rows < 1 || rows > (1 << 22) || cols < 1 || cols > (1 << 16) ||
        static_cast<long long>(rows) * cols > (1LL << 27))
        throw std::invalid_argument("row_norms: sizes out of range (rows " + std::to_string(rows) + ", cols " +
                                    std::to_string(cols) + ")");
    NormProblem p;
    p.rows = rows;
    p.cols = cols;
    gi::kernels::SplitMix64 rng(seed);
    p.matrix.resize(static_cast<std::size_t>(rows) * cols);
    for (int r = 0; r < rows; ++r) {
        const double scale = std::exp2(rng.uniform(-4, 4));
        float* row = p.matrix.data() + static_cast<std::size_t>(r) * cols;
        for (int c = 0; c < cols; ++c) row[c] = static_cast<float>(scale * rng.uniform(-1, 1));
    }
    return p;
}

std::vector<float> row_norms_reference(const NormProblem& p) {
    std::vector<float> out(static_cast<std::size_t>(p.rows));
    for (int r = 0; r < p.rows; ++r) {
        const float* row = p.matrix.data() + static_cast<std::size_t>(r) * p.cols;
        double sum = 0;
        for (int c = 0; c < p.cols; ++c) sum += double(row[c]) * row[c];
        out[static_cast<std::size_t>(r)] = static_cast<float>(std::sqrt(sum));
    }
    return out;
}

}  // namespace gi::row_norms
