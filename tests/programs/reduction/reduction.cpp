// reduction: sums N random floats on the GPU (a first pass of at most --maxblocks blocks, then
// passes over the partial sums until one is left), times the whole sum over many iterations and
// checks it against a compensated CPU sum. Prints PASS or FAIL; exits nonzero on FAIL
// (EXIT_WAIVED without a GPU).
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <helper_cuda.h>
#include <helper_functions.h>

#include "reduction.h"

static const char *const kUsage =
    "usage: reduction [--n=N] [--threads=T] [--maxblocks=B] [--iterations=I] [--seed=S] [--device=D]\n"
    "  Sums N random floats (default 16777216) on the GPU with T threads per block (32, 64, 128,\n"
    "  256 or 512; default 256) and at most B blocks in the first pass (default 64), I times (default\n"
    "  100) to time it, and checks the sum against the CPU's (relative error at most 1e-5).\n"
    "  Values may also follow the option: --n 100000.\n";

static unsigned int nextPow2(unsigned int x) {
  --x;
  x |= x >> 1;
  x |= x >> 2;
  x |= x >> 4;
  x |= x >> 8;
  x |= x >> 16;
  return ++x;
}

// Threads and blocks of a pass over n elements: each thread adds at least two elements; the block
// size never goes below one warp (the kernel's last step is a whole warp's shuffle).
static void getNumBlocksAndThreads(int n, int maxBlocks, int maxThreads, int &blocks, int &threads) {
  threads = (n < maxThreads * 2) ? static_cast<int>(nextPow2((n + 1) / 2)) : maxThreads;
  threads = std::max(threads, REDUCTION_MIN_THREADS);
  blocks = (n + (threads * 2 - 1)) / (threads * 2);
  blocks = std::min(maxBlocks, blocks);
}

// Kahan summation, as the CUDA samples' reference does.
static double reduceCPU(const float *data, int size) {
  double sum = data[0];
  double c = 0.0;
  for (int i = 1; i < size; i++) {
    double y = data[i] - c;
    double t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum;
}

// The whole sum on the GPU: the first pass into d_odata, then passes over the partial sums in place.
static float benchmarkReduce(int n, int numThreads, int numBlocks, int maxThreads, int maxBlocks, const float *d_idata,
                             float *d_odata) {
  reduce<float>(n, numThreads, numBlocks, d_idata, d_odata);
  int s = numBlocks;
  while (s > 1) {
    int threads = 0, blocks = 0;
    getNumBlocksAndThreads(s, maxBlocks, maxThreads, blocks, threads);
    reduce<float>(s, threads, blocks, d_odata, d_odata);
    s = blocks;
  }
  float gpu_result = 0;
  checkCudaErrors(cudaMemcpy(&gpu_result, d_odata, sizeof(float), cudaMemcpyDeviceToHost));
  return gpu_result;
}

int main(int argc, const char **argv) {
  static const char *const known[] = {"help", "n", "threads", "maxblocks", "iterations", "seed", "device", nullptr};
  if (checkCmdLineFlag(argc, argv, "help")) {
    printf("%s", kUsage);
    return EXIT_SUCCESS;
  }
  checkCmdLineKnown(argc, argv, known);
  const int size = getCmdLineArgumentInt(argc, argv, "n", 1 << 24, 1, 1 << 28);
  const int maxThreads = getCmdLineArgumentInt(argc, argv, "threads", 256, REDUCTION_MIN_THREADS, REDUCTION_MAX_THREADS);
  const int maxBlocks = getCmdLineArgumentInt(argc, argv, "maxblocks", 64, 1, 65535);
  const int iterations = getCmdLineArgumentInt(argc, argv, "iterations", 100, 1, 1000000);
  const unsigned seed = static_cast<unsigned>(getCmdLineArgumentInt(argc, argv, "seed", 1));
  if ((maxThreads & (maxThreads - 1)) != 0) {
    fprintf(stderr, "--threads must be a power of two, got %d\n", maxThreads);
    return EXIT_FAILURE;
  }

  printf("%s Starting...\n\n", argv[0]);
  findCudaDevice(getCmdLineArgumentInt(argc, argv, "device", 0));
  printf("%d elements\n", size);
  printf("%d threads (max)\n", maxThreads);

  std::vector<float> h_idata(size);
  srand(seed);
  for (int i = 0; i < size; i++) {
    // Keep the numbers small so we don't get truncation error in the sum
    h_idata[i] = (rand() & 0xFF) / static_cast<float>(RAND_MAX);
  }

  int numBlocks = 0, numThreads = 0;
  getNumBlocksAndThreads(size, maxBlocks, maxThreads, numBlocks, numThreads);
  printf("%d blocks\n\n", numBlocks);

  float *d_idata = nullptr, *d_odata = nullptr;
  checkCudaErrors(cudaMalloc(&d_idata, size * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_odata, numBlocks * sizeof(float)));
  checkCudaErrors(cudaMemcpy(d_idata, h_idata.data(), size * sizeof(float), cudaMemcpyHostToDevice));

  // warm-up
  float gpu_result = benchmarkReduce(size, numThreads, numBlocks, maxThreads, maxBlocks, d_idata, d_odata);

  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaEventRecord(start));
  for (int i = 0; i < iterations; ++i)
    gpu_result = benchmarkReduce(size, numThreads, numBlocks, maxThreads, maxBlocks, d_idata, d_odata);
  checkCudaErrors(cudaEventRecord(stop));
  checkCudaErrors(cudaEventSynchronize(stop));
  float elapsed = 0;
  checkCudaErrors(cudaEventElapsedTime(&elapsed, start, stop));
  const double perIteration = elapsed / iterations;
  printf("Reduction, Throughput = %.4f GB/s, Time = %.5f s, Size = %d Elements, NumDevsUsed = 1, Workgroup = %d\n",
         1.0e-9 * size * sizeof(float) / (perIteration * 1e-3), perIteration * 1e-3, size, numThreads);
  printf("time per iteration: %.6f ms\n\n", perIteration);

  const double cpu_result = reduceCPU(h_idata.data(), size);
  const double diff = std::fabs(static_cast<double>(gpu_result) - cpu_result);
  printf("\nGPU result = %.9f\n", gpu_result);
  printf("CPU result = %.9f\n\n", cpu_result);

  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaFree(d_idata));
  checkCudaErrors(cudaFree(d_odata));

  const bool ok = diff <= 1e-5 * std::fabs(cpu_result);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
