#pragma once
// CPU side of the row-norm example: a matrix of rows of different scales (the input) and a plain
// implementation of what row_norms.cu computes (the oracle).
#include <cstdint>
#include <vector>

namespace gi::row_norms {

struct NormProblem {
    int rows = 0;
    int cols = 0;
    std::vector<float> matrix;  // rows x cols, row-major
};

// Entries uniform in [-1, 1) times a per-row scale between 1/16 and 16, so the norms span a few
// orders of magnitude. Throws std::invalid_argument for sizes outside 1..2^22 rows, 1..2^16
// columns or more than 2^27 entries.
NormProblem make_norm_problem(int rows, int cols, std::uint64_t seed);

// sqrt of each row's sum of squares, summed in double (the kernel's float tree is within a few
// ulps of it).
std::vector<float> row_norms_reference(const NormProblem& problem);

}  // namespace gi::row_norms
