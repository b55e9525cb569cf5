#pragma once
// CPU side of the dynamic-programming sweep: a grid of cell costs (the input) and the cheapest path
// costs row by row (the oracle of dp_sweep.cu).
#include <cstdint>
#include <vector>

namespace gi::dp_sweep {

// rows x cols costs 0..9, row after row, with a few cheap valleys wandering down the grid so that
// the paths follow something. Throws std::invalid_argument unless 1 <= rows, 1 <= cols and
// rows * cols < 2^31 (the kernel indexes with int).
std::vector<int> make_costs(int rows, int cols, std::uint64_t seed);

// One step of the recurrence: `current` from `previous` and the costs of `row`.
void dp_row_reference(const std::vector<int>& costs, const std::vector<int>& previous, std::vector<int>& current,
                      int cols, int row);

// The last row of best costs after the whole sweep (row 0's best costs are its costs).
std::vector<int> dp_sweep_reference(const std::vector<int>& costs, int rows, int cols);

}  // namespace gi::dp_sweep
