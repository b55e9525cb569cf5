#pragma once
// CPU side of the alignment example: two related protein sequences and a substitution table (the
// inputs), the score matrix as the host prepares it, and a plain Needleman-Wunsch fill (the oracle
// of wavefront.cu).
#include <cstdint>
#include <vector>

namespace gi::wavefront {

inline constexpr int kAlphabet = 24;  // must equal ALPHABET in wavefront.cu

// kAlphabet x kAlphabet scores, symmetric, row-major: a residue against itself 4..11, residues of
// one chemical group 0..2, others -1..-4 (the shape of the BLOSUM tables, not their values).
std::vector<int> substitution_table();

struct SequencePair {
    std::vector<int> a;  // residues 0..kAlphabet-1
    std::vector<int> b;
};

// `a` random, `b` of length m derived from it by substitutions, insertions and deletions, so that
// the best alignment follows a diagonal band. Throws std::invalid_argument unless 1 <= n, m <= 46340
// (the matrix must stay under 2^31 cells).
SequencePair make_sequences(int n, int m, std::uint64_t seed);

// The (n + 1) x (m + 1) matrix the host uploads: row 0 and column 0 are -gap * index, the interior 0.
std::vector<int> initial_scores(int n, int m, int gap);

// The whole filled matrix.
std::vector<int> align_reference(const SequencePair& s, const std::vector<int>& table, int gap);

}  // namespace gi::wavefront
