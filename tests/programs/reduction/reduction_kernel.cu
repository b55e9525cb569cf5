// reduction_kernel.cu: host code choosing the reduce6 instantiation for a pass (its block size is a
// template argument, so each size the program may use is compiled).
#include <cstdio>
#include <cstdlib>

#include <gi/launch.hpp>

#include <helper_cuda.h>

#include "reduction.h"
#include "reduction_kernel.cuh"

static bool isPow2(unsigned int x) { return ((x & (x - 1)) == 0); }

template <class T, unsigned int blockSize, bool nIsPow2>
static void launchReduce6(dim3 dimGrid, dim3 dimBlock, int smemSize, const T *d_idata, T *d_odata, int size) {
  checkCudaErrors(gi::launch(reduce6<T, blockSize, nIsPow2>, "reduce6", dimGrid, dimBlock, smemSize, 0, d_idata,
                             d_odata, size));
}

template <class T, bool nIsPow2>
static void reduceBlockSize(int threads, dim3 dimGrid, dim3 dimBlock, int smemSize, const T *d_idata, T *d_odata,
                            int size) {
  switch (threads) {
    case 512:
      launchReduce6<T, 512, nIsPow2>(dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
      break;
    case 256:
      launchReduce6<T, 256, nIsPow2>(dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
      break;
    case 128:
      launchReduce6<T, 128, nIsPow2>(dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
      break;
    case 64:
      launchReduce6<T, 64, nIsPow2>(dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
      break;
    case 32:
      launchReduce6<T, 32, nIsPow2>(dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
      break;
    default:
      fprintf(stderr, "reduce: %d threads per block is not one of 32, 64, 128, 256, 512\n", threads);
      exit(EXIT_FAILURE);
  }
}

template <class T>
void reduce(int size, int threads, int blocks, const T *d_idata, T *d_odata) {
  dim3 dimBlock(threads, 1, 1);
  dim3 dimGrid(blocks, 1, 1);

  // when there is only one warp per block, we need to allocate two warps
  // worth of shared memory so that we don't index shared memory out of bounds
  int smemSize = (threads <= 32) ? 2 * threads * sizeof(T) : threads * sizeof(T);

  if (isPow2(size)) {
    reduceBlockSize<T, true>(threads, dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
  } else {
    reduceBlockSize<T, false>(threads, dimGrid, dimBlock, smemSize, d_idata, d_odata, size);
  }
  getLastCudaError("reduce6 execution failed");
}

// Instantiate the reduction function for the types the program uses.
template void reduce<float>(int size, int threads, int blocks, const float *d_idata, float *d_odata);
