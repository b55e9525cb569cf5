#include "dp_sweep/reference.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/random.hpp"

namespace gi::dp_sweep {

std::vector<int> make_costs(int rows, int cols, std::uint64_t seed) {
    if (rows < 1 || cols < 1 || static_cast<long long>(rows) * cols >= (1LL << 31)) {
        throw std::invalid_argument("cost grid of " + std::to_string(rows) + " x " + std::to_string(cols) +
                                    ": needs at least one row and column and fewer than 2^31 cells");
    }
    gi::kernels::SplitMix64 rng(seed * 0xA24BAED4963EE407ull + 3);
    std::vector<int> costs(static_cast<std::size_t>(rows) * cols);
    for (int& c : costs) c = rng.uniform_int(0, 9);
    // Valleys: a column that drifts by at most one a row, zero-cost cells along it.
    const int valleys = 1 + cols / 4096;
    for (int v = 0; v < valleys; ++v) {
        int col = rng.uniform_int(0, cols - 1);
        for (int r = 0; r < rows; ++r) {
            costs[static_cast<std::size_t>(r) * cols + col] = 0;
            col = std::clamp(col + rng.uniform_int(-1, 1), 0, cols - 1);
        }
    }
    return costs;
}

void dp_row_reference(const std::vector<int>& costs, const std::vector<int>& previous, std::vector<int>& current,
                      int cols, int row) {
    current.resize(cols);
    for (int c = 0; c < cols; ++c) {
        int best = previous[c];
        if (c > 0) best = std::min(best, previous[c - 1]);
        if (c + 1 < cols) best = std::min(best, previous[c + 1]);
        current[c] = costs[static_cast<std::size_t>(row) * cols + c] + best;
    }
}

std::vector<int> dp_sweep_reference(const std::vector<int>& costs, int rows, int cols) {
    std::vector<int> previous(costs.begin(), costs.begin() + cols), current;
    for (int r = 1; r < rows; ++r) {
        dp_row_reference(costs, previous, current, cols, r);
        std::swap(previous, current);
    }
    return previous;
}

}  // namespace gi::dp_sweep
