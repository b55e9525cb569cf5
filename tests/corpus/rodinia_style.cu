// The tunable block size of benchmark suites: the build may pass -DRD_WG_SIZE_0=..., otherwise the
// #else value is the size. Host code in the file sizes the launch from the same macro.
#include <cstdio>

#ifdef RD_WG_SIZE_0_0
        #define BLOCK_SIZE RD_WG_SIZE_0_0
#elif defined(RD_WG_SIZE_0)
        #define BLOCK_SIZE RD_WG_SIZE_0
#elif defined(RD_WG_SIZE)
        #define BLOCK_SIZE RD_WG_SIZE
#else
        #define BLOCK_SIZE 16
#endif

__global__ void lud_diagonal(float *m, int matrix_dim, int offset)
{
  int i, j;
  __shared__ float shadow[BLOCK_SIZE][BLOCK_SIZE];

  int array_offset = offset * matrix_dim + offset;
  for (i = 0; i < BLOCK_SIZE; i++) {
    shadow[i][threadIdx.x] = m[array_offset + threadIdx.x];
    array_offset += matrix_dim;
  }
  __syncthreads();
  for (i = 0; i < BLOCK_SIZE - 1; i++) {
    if (threadIdx.x > i) {
      for (j = 0; j < i; j++)
        shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
      shadow[threadIdx.x][i] /= shadow[i][i];
    }
    __syncthreads();
    if (threadIdx.x > i) {
      for (j = 0; j < i + 1; j++)
        shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
    }
    __syncthreads();
  }
  array_offset = (offset + 1) * matrix_dim + offset;
  for (i = 1; i < BLOCK_SIZE; i++) {
    m[array_offset + threadIdx.x] = shadow[i][threadIdx.x];
    array_offset += matrix_dim;
  }
}

void lud_cuda(float *m, int matrix_dim)
{
  for (int i = 0; i < matrix_dim - BLOCK_SIZE; i += BLOCK_SIZE)
    lud_diagonal<<<1, BLOCK_SIZE>>>(m, matrix_dim, i);
  printf("lud: %d blocks of %d\n", matrix_dim / BLOCK_SIZE, BLOCK_SIZE);
}
