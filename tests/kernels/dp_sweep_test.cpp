// kernels/dp_sweep: the CPU reference finds the cheapest path (against trying every path on small
// grids), and dp_sweep.cu itself, run on the CPU emulator, matches it row by row at widths around
// the block size.
#include <gtest/gtest.h>

#include <algorithm>
#include <climits>

#include "dp_sweep/reference.hpp"
#include "emulator/corpus_kernels.hpp"

namespace gi::dp_sweep {
namespace {

// The cheapest path ending at (row, col), by trying every path.
int cheapest_by_search(const std::vector<int>& costs, int cols, int row, int col) {
    const int here = costs[row * cols + col];
    if (row == 0) return here;
    int best = INT_MAX;
    for (int d : {-1, 0, 1})
        if (col + d >= 0 && col + d < cols) best = std::min(best, cheapest_by_search(costs, cols, row - 1, col + d));
    return here + best;
}

TEST(DpSweepReference, TheSweepFindsTheCheapestPathToEveryBottomCell) {
    for (auto [rows, cols] : {std::pair{1, 5}, std::pair{6, 1}, std::pair{7, 9}, std::pair{5, 2}}) {
        const std::vector<int> costs = make_costs(rows, cols, rows * 31 + cols);
        const std::vector<int> last = dp_sweep_reference(costs, rows, cols);
        ASSERT_EQ(last.size(), static_cast<std::size_t>(cols));
        for (int c = 0; c < cols; ++c) EXPECT_EQ(last[c], cheapest_by_search(costs, cols, rows - 1, c)) << rows << "x" << cols;
    }
}

TEST(DpSweepReference, CostsAreSeededDigitsWithAValley) {
    const std::vector<int> a = make_costs(50, 300, 1);
    EXPECT_EQ(a, make_costs(50, 300, 1));
    EXPECT_NE(a, make_costs(50, 300, 2));
    for (int v : a) ASSERT_TRUE(v >= 0 && v <= 9);
    // A zero-cost valley runs from top to bottom.
    const std::vector<int> last = dp_sweep_reference(a, 50, 300);
    EXPECT_EQ(*std::min_element(last.begin(), last.end()), 0);
    EXPECT_THROW(make_costs(1 << 16, 1 << 16, 1), std::invalid_argument);
}

TEST(DpSweepEmulated, EveryConfigurationMatchesTheReferenceRowByRow) {
    ASSERT_GE(emu::dp_sweep_configs().size(), 2u);
    for (int cols : {1, 31, 32, 33, 255, 256, 257, 700}) {
        const int rows = 4;
        const std::vector<int> costs = make_costs(rows, cols, cols);
        for (const emu::DpSweepConfig& config : emu::dp_sweep_configs()) {
            for (emu::Order order : {emu::Order::Forward, emu::Order::Reverse}) {
                SCOPED_TRACE(config.name + " cols " + std::to_string(cols) +
                             (order == emu::Order::Forward ? " forward" : " reverse"));
                std::vector<int> previous(costs.begin(), costs.begin() + cols), expected;
                for (int r = 1; r < rows; ++r) {
                    const std::vector<int> got = config.run(costs, previous, cols, r, order);
                    dp_row_reference(costs, previous, expected, cols, r);
                    ASSERT_EQ(got, expected) << "row " << r;
                    previous = got;
                }
            }
        }
    }
}

}  // namespace
}  // namespace gi::dp_sweep
