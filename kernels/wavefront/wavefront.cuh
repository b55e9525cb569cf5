#pragma once
// Host-side view of wavefront.cu: one anti-diagonal of tiles of the alignment's score matrix, the
// launch geometry of each anti-diagonal and the substitution table (constant memory).
#include <cuda_runtime.h>

__global__ void align_diagonal(int* score, const int* seq_a, const int* seq_b, int n, int m, int diagonal, int gap);

int align_tile();
dim3 align_block();
dim3 align_grid(int n, int m, int diagonal);
int align_diagonals(int n, int m);
cudaError_t align_set_substitution(const int* table);  // ALPHABET x ALPHABET scores, row-major
