// matrixMul: C = A * B with a tiled kernel whose tile size is a template argument, in the style of
// the CUDA samples' matrixMul (kernel, host code and main() in one file; the product runs on a
// stream of its own). Times --iterations products and checks C against the CPU. Prints PASS or
// FAIL; exits nonzero on FAIL (EXIT_WAIVED without a GPU).
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <gi/launch.hpp>

#include <helper_cuda.h>
#include <helper_functions.h>

/**
 * Matrix multiplication (CUDA Kernel) on the device: C = A * B
 * wA is A's width and wB is B's width
 */
template <int BLOCK_SIZE>
__global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB) {
  // Block index
  int bx = blockIdx.x;
  int by = blockIdx.y;

  // Thread index
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  // Index of the first sub-matrix of A processed by the block
  int aBegin = wA * BLOCK_SIZE * by;

  // Index of the last sub-matrix of A processed by the block
  int aEnd = aBegin + wA - 1;

  // Step size used to iterate through the sub-matrices of A
  int aStep = BLOCK_SIZE;

  // Index of the first sub-matrix of B processed by the block
  int bBegin = BLOCK_SIZE * bx;

  // Step size used to iterate through the sub-matrices of B
  int bStep = BLOCK_SIZE * wB;

  // Csub is used to store the element of the block sub-matrix
  // that is computed by the thread
  float Csub = 0;

  // Loop over all the sub-matrices of A and B
  // required to compute the block sub-matrix
  for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
    // Declaration of the shared memory array As used to
    // store the sub-matrix of A
    __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];

    // Declaration of the shared memory array Bs used to
    // store the sub-matrix of B
    __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

    // Load the matrices from device memory
    // to shared memory; each thread loads
    // one element of each matrix
    As[ty][tx] = A[a + wA * ty + tx];
    Bs[ty][tx] = B[b + wB * ty + tx];

    // Synchronize to make sure the matrices are loaded
    __syncthreads();

    // Multiply the two matrices together;
    // each thread computes one element
    // of the block sub-matrix
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) {
      Csub += As[ty][k] * Bs[k][tx];
    }

    // Synchronize to make sure that the preceding
    // computation is done before loading two new
    // sub-matrices of A and B in the next iteration
    __syncthreads();
  }

  // Write the block sub-matrix to device memory;
  // each thread writes one element
  int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
  C[c + wB * ty + tx] = Csub;
}

// Fills a matrix with small multiples of 1/4 or 1/8: every product and sum of the sizes used here
// is exact in float, so the GPU's result must equal the CPU's whatever order it adds in.
static void RandomInit(float *data, int size, int denominator) {
  for (int i = 0; i < size; ++i) data[i] = static_cast<float>(rand() % 17 - 8) / denominator;
}

template <int BLOCK_SIZE>
static void launchMatrixMul(dim3 grid, dim3 threads, cudaStream_t stream, float *d_C, float *d_A, float *d_B,
                            int wA, int wB) {
  checkCudaErrors(gi::launch(MatrixMulCUDA<BLOCK_SIZE>, "MatrixMulCUDA", grid, threads, 0, stream, d_C, d_A, d_B,
                             wA, wB));
}

/**
 * Run a simple test of matrix multiplication using CUDA
 */
static int MatrixMultiply(int block_size, const dim3 &dimsA, const dim3 &dimsB, int nIter) {
  // Allocate host memory for matrices A and B
  const unsigned int size_A = dimsA.x * dimsA.y;
  const unsigned int size_B = dimsB.x * dimsB.y;
  float *h_A, *h_B, *h_C;
  checkCudaErrors(cudaMallocHost(&h_A, sizeof(float) * size_A));
  checkCudaErrors(cudaMallocHost(&h_B, sizeof(float) * size_B));
  RandomInit(h_A, size_A, 4);
  RandomInit(h_B, size_B, 8);

  // Allocate host matrix C
  dim3 dimsC(dimsB.x, dimsA.y, 1);
  const unsigned int size_C = dimsC.x * dimsC.y;
  checkCudaErrors(cudaMallocHost(&h_C, sizeof(float) * size_C));

  // Allocate device memory
  float *d_A, *d_B, *d_C;
  checkCudaErrors(cudaMalloc(&d_A, sizeof(float) * size_A));
  checkCudaErrors(cudaMalloc(&d_B, sizeof(float) * size_B));
  checkCudaErrors(cudaMalloc(&d_C, sizeof(float) * size_C));

  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  cudaStream_t stream;
  checkCudaErrors(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

  // copy host memory to device
  checkCudaErrors(cudaMemcpyAsync(d_A, h_A, sizeof(float) * size_A, cudaMemcpyHostToDevice, stream));
  checkCudaErrors(cudaMemcpyAsync(d_B, h_B, sizeof(float) * size_B, cudaMemcpyHostToDevice, stream));

  // Setup execution parameters
  dim3 threads(block_size, block_size);
  dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);

  // Create and start timer
  printf("Computing result using CUDA Kernel...\n");

  // Performs warmup operation using matrixMul CUDA kernel
  if (block_size == 16) {
    launchMatrixMul<16>(grid, threads, stream, d_C, d_A, d_B, dimsA.x, dimsB.x);
  } else {
    launchMatrixMul<32>(grid, threads, stream, d_C, d_A, d_B, dimsA.x, dimsB.x);
  }

  printf("done\n");
  checkCudaErrors(cudaStreamSynchronize(stream));

  // Record the start event
  checkCudaErrors(cudaEventRecord(start, stream));

  // Execute the kernel
  for (int j = 0; j < nIter; j++) {
    if (block_size == 16) {
      launchMatrixMul<16>(grid, threads, stream, d_C, d_A, d_B, dimsA.x, dimsB.x);
    } else {
      launchMatrixMul<32>(grid, threads, stream, d_C, d_A, d_B, dimsA.x, dimsB.x);
    }
  }

  // Record the stop event
  checkCudaErrors(cudaEventRecord(stop, stream));

  // Wait for the stop event to complete
  checkCudaErrors(cudaEventSynchronize(stop));

  float msecTotal = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&msecTotal, start, stop));

  // Compute and print the performance
  float msecPerMatrixMul = msecTotal / nIter;
  double flopsPerMatrixMul = 2.0 * static_cast<double>(dimsA.x) * static_cast<double>(dimsA.y) *
                             static_cast<double>(dimsB.x);
  double gigaFlops = (flopsPerMatrixMul * 1.0e-9f) / (msecPerMatrixMul / 1000.0f);
  printf("Performance= %.2f GFlop/s, Time= %.3f msec, Size= %.0f Ops, WorkgroupSize= %u threads/block\n", gigaFlops,
         msecPerMatrixMul, flopsPerMatrixMul, threads.x * threads.y);
  printf("time per iteration: %.6f ms\n", msecPerMatrixMul);

  // Copy result from device to host
  checkCudaErrors(cudaMemcpyAsync(h_C, d_C, sizeof(float) * size_C, cudaMemcpyDeviceToHost, stream));
  checkCudaErrors(cudaStreamSynchronize(stream));

  printf("Checking computed result for correctness: ");
  bool correct = true;

  // test relative error by the formula
  //     |<x, y>_cpu - <x,y>_gpu|/<|x|, |y|>  < eps
  double eps = 1.e-6;  // machine zero
  int wrong = 0;
  for (int i = 0; i < static_cast<int>(dimsC.y); i++) {
    for (int j = 0; j < static_cast<int>(dimsC.x); j++) {
      double ref = 0, norm = 0;
      for (int k = 0; k < static_cast<int>(dimsA.x); k++) {
        ref += static_cast<double>(h_A[i * dimsA.x + k]) * h_B[k * dimsB.x + j];
        norm += std::fabs(static_cast<double>(h_A[i * dimsA.x + k]) * h_B[k * dimsB.x + j]);
      }
      double abs_err = std::fabs(h_C[i * dimsC.x + j] - ref);
      double rel_err = norm > 0 ? abs_err / norm : abs_err;
      if (rel_err > eps) {
        if (wrong++ < 10)
          printf("\nError! Matrix[%05d]=%.8f, ref=%.8f error term is > %E", i * dimsC.x + j, h_C[i * dimsC.x + j], ref,
                 eps);
        correct = false;
      }
    }
  }
  printf("%s\n", correct ? "Result = PASS" : "Result = FAIL");

  // Clean up memory
  checkCudaErrors(cudaFreeHost(h_A));
  checkCudaErrors(cudaFreeHost(h_B));
  checkCudaErrors(cudaFreeHost(h_C));
  checkCudaErrors(cudaFree(d_A));
  checkCudaErrors(cudaFree(d_B));
  checkCudaErrors(cudaFree(d_C));
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaStreamDestroy(stream));

  printf("%s\n", correct ? "PASS" : "FAIL");
  return correct ? EXIT_SUCCESS : EXIT_FAILURE;
}

/**
 * Program main
 */
int main(int argc, const char **argv) {
  static const char *const known[] = {"help", "wA", "hA", "wB", "hB", "iterations", "seed", "device", nullptr};
  if (checkCmdLineFlag(argc, argv, "help") || checkCmdLineFlag(argc, argv, "?")) {
    printf("Usage --device=n (n >= 0 for deviceID)\n");
    printf("      --wA=WidthA --hA=HeightA (Width x Height of Matrix A)\n");
    printf("      --wB=WidthB --hB=HeightB (Width x Height of Matrix B)\n");
    printf("      --iterations=N (products timed, default 300) --seed=S\n");
    printf("  Note: Outer matrix dimensions of A & B matrices must be equal, and all\n");
    printf("        dimensions multiples of the block size (32).\n");
    return EXIT_SUCCESS;
  }
  checkCmdLineKnown(argc, argv, known);

  printf("[Matrix Multiply Using CUDA] - Starting...\n");
  int block_size = 32;
  dim3 dimsA(5 * 2 * block_size, 5 * 2 * block_size, 1);
  dim3 dimsB(5 * 4 * block_size, 5 * 2 * block_size, 1);
  dimsA.x = getCmdLineArgumentInt(argc, argv, "wA", dimsA.x, 1);
  dimsA.y = getCmdLineArgumentInt(argc, argv, "hA", dimsA.y, 1);
  dimsB.x = getCmdLineArgumentInt(argc, argv, "wB", dimsB.x, 1);
  dimsB.y = getCmdLineArgumentInt(argc, argv, "hB", dimsB.y, 1);
  const int nIter = getCmdLineArgumentInt(argc, argv, "iterations", 300, 1, 1000000);
  srand(static_cast<unsigned>(getCmdLineArgumentInt(argc, argv, "seed", 1)));

  if (dimsA.x != dimsB.y) {
    printf("Error: outer matrix dimensions must be equal. (%d != %d)\n", dimsA.x, dimsB.y);
    exit(EXIT_FAILURE);
  }
  if (dimsA.x % block_size || dimsA.y % block_size || dimsB.x % block_size) {
    printf("Error: the dimensions must be multiples of %d\n", block_size);
    exit(EXIT_FAILURE);
  }

  findCudaDevice(getCmdLineArgumentInt(argc, argv, "device", 0));
  printf("MatrixA(%d,%d), MatrixB(%d,%d)\n", dimsA.x, dimsA.y, dimsB.x, dimsB.y);

  checkCudaErrors(cudaProfilerStart());
  int matrix_result = MatrixMultiply(block_size, dimsA, dimsB, nIter);
  checkCudaErrors(cudaProfilerStop());

  exit(matrix_result);
}
