// BlackScholes: prices --optn European options (call and put) on the GPU, --iterations times on the
// same inputs as its benchmark, in the style of the CUDA samples' BlackScholes: the kernel in
// BlackScholes_kernel.cuh, launched with <<<>>>, the CPU reference in BlackScholes_gold.cpp. Checks
// the GPU's prices against the CPU's by their relative L1 distance. Prints PASS or FAIL; exits
// nonzero on FAIL (EXIT_WAIVED without a GPU). This file is as its authors would write it: nothing
// in it knows about gi-optimize.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <helper_cuda.h>
#include <helper_functions.h>

#include "BlackScholes_kernel.cuh"

extern "C" void BlackScholesCPU(float *h_CallResult, float *h_PutResult, float *h_StockPrice, float *h_OptionStrike,
                                float *h_OptionYears, float Riskfree, float Volatility, int optN);

// Random float in [low, high]
static float RandFloat(float low, float high) {
  float t = (float)rand() / (float)RAND_MAX;
  return (1.0f - t) * low + t * high;
}

#define DIV_UP(a, b) (((a) + (b) - 1) / (b))

const float RISKFREE = 0.02f;
const float VOLATILITY = 0.30f;

int main(int argc, const char **argv) {
  static const char *const known[] = {"help", "optn", "iterations", "seed", "device", nullptr};
  if (checkCmdLineFlag(argc, argv, "help") || checkCmdLineFlag(argc, argv, "?")) {
    printf("Usage --device=n (n >= 0 for deviceID)\n");
    printf("      --optn=N (options priced, even, default 4000000)\n");
    printf("      --iterations=N (kernel launches timed, default 512) --seed=S\n");
    return EXIT_SUCCESS;
  }
  checkCmdLineKnown(argc, argv, known);

  printf("[%s] - Starting...\n", argv[0]);
  const int OPT_N = getCmdLineArgumentInt(argc, argv, "optn", 4000000, 2, 1 << 28);
  const int NUM_ITERATIONS = getCmdLineArgumentInt(argc, argv, "iterations", 512, 1, 1000000);
  srand(static_cast<unsigned>(getCmdLineArgumentInt(argc, argv, "seed", 5347)));
  if (OPT_N % 2) {
    printf("Error: --optn must be even (two options per thread), not %d\n", OPT_N);
    exit(EXIT_FAILURE);
  }
  const int OPT_SZ = OPT_N * sizeof(float);

  findCudaDevice(getCmdLineArgumentInt(argc, argv, "device", 0));

  float *h_CallResultCPU, *h_PutResultCPU, *h_CallResultGPU, *h_PutResultGPU;
  float *h_StockPrice, *h_OptionStrike, *h_OptionYears;
  float *d_CallResult, *d_PutResult, *d_StockPrice, *d_OptionStrike, *d_OptionYears;

  printf("Initializing data...\n");
  printf("...allocating CPU memory for options.\n");
  h_CallResultCPU = (float *)malloc(OPT_SZ);
  h_PutResultCPU = (float *)malloc(OPT_SZ);
  h_CallResultGPU = (float *)malloc(OPT_SZ);
  h_PutResultGPU = (float *)malloc(OPT_SZ);
  h_StockPrice = (float *)malloc(OPT_SZ);
  h_OptionStrike = (float *)malloc(OPT_SZ);
  h_OptionYears = (float *)malloc(OPT_SZ);

  printf("...allocating GPU memory for options.\n");
  checkCudaErrors(cudaMalloc((void **)&d_CallResult, OPT_SZ));
  checkCudaErrors(cudaMalloc((void **)&d_PutResult, OPT_SZ));
  checkCudaErrors(cudaMalloc((void **)&d_StockPrice, OPT_SZ));
  checkCudaErrors(cudaMalloc((void **)&d_OptionStrike, OPT_SZ));
  checkCudaErrors(cudaMalloc((void **)&d_OptionYears, OPT_SZ));

  printf("...generating input data in CPU mem.\n");
  for (int i = 0; i < OPT_N; i++) {
    h_CallResultCPU[i] = 0.0f;
    h_PutResultCPU[i] = -1.0f;
    h_StockPrice[i] = RandFloat(5.0f, 30.0f);
    h_OptionStrike[i] = RandFloat(1.0f, 100.0f);
    h_OptionYears[i] = RandFloat(0.25f, 10.0f);
  }

  printf("...copying input data to GPU mem.\n");
  checkCudaErrors(cudaMemcpy(d_StockPrice, h_StockPrice, OPT_SZ, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_OptionStrike, h_OptionStrike, OPT_SZ, cudaMemcpyHostToDevice));
  checkCudaErrors(cudaMemcpy(d_OptionYears, h_OptionYears, OPT_SZ, cudaMemcpyHostToDevice));
  printf("Data init done.\n\n");

  printf("Executing Black-Scholes GPU kernel (%i iterations)...\n", NUM_ITERATIONS);
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  checkCudaErrors(cudaDeviceSynchronize());
  checkCudaErrors(cudaEventRecord(start));

  for (int i = 0; i < NUM_ITERATIONS; i++) {
    BlackScholesGPU<<<DIV_UP((OPT_N / 2), 128), 128 /*480, 128*/>>>(
        (float2 *)d_CallResult, (float2 *)d_PutResult, (float2 *)d_StockPrice, (float2 *)d_OptionStrike,
        (float2 *)d_OptionYears, RISKFREE, VOLATILITY, OPT_N);
    getLastCudaError("BlackScholesGPU() execution failed\n");
  }

  checkCudaErrors(cudaEventRecord(stop));
  checkCudaErrors(cudaEventSynchronize(stop));
  float msecTotal = 0.0f;
  checkCudaErrors(cudaEventElapsedTime(&msecTotal, start, stop));
  const double gpuTime = msecTotal / NUM_ITERATIONS;

  // Both call and put are calculated
  printf("Options count             : %i     \n", 2 * OPT_N);
  printf("BlackScholesGPU() time    : %f msec\n", gpuTime);
  printf("Effective memory bandwidth: %f GB/s\n", ((double)(5 * OPT_N * sizeof(float)) * 1E-9) / (gpuTime * 1E-3));
  printf("Gigaoptions per second    : %f     \n\n", ((double)(2 * OPT_N) * 1E-9) / (gpuTime * 1E-3));
  printf("time per iteration: %.6f ms\n", gpuTime);

  printf("\nReading back GPU results...\n");
  checkCudaErrors(cudaMemcpy(h_CallResultGPU, d_CallResult, OPT_SZ, cudaMemcpyDeviceToHost));
  checkCudaErrors(cudaMemcpy(h_PutResultGPU, d_PutResult, OPT_SZ, cudaMemcpyDeviceToHost));

  printf("Checking the results...\n");
  printf("...running CPU calculations.\n\n");
  BlackScholesCPU(h_CallResultCPU, h_PutResultCPU, h_StockPrice, h_OptionStrike, h_OptionYears, RISKFREE,
                  VOLATILITY, OPT_N);

  printf("Comparing the results...\n");
  // Calculating the relative L1 distance and the largest absolute error
  double sum_delta = 0, sum_ref = 0, max_delta = 0;
  for (int i = 0; i < OPT_N; i++) {
    const double ref = h_CallResultCPU[i];
    const double delta = fabs(h_CallResultCPU[i] - h_CallResultGPU[i]);
    if (delta > max_delta) max_delta = delta;
    sum_delta += delta;
    sum_ref += fabs(ref);
    const double put_delta = fabs(h_PutResultCPU[i] - h_PutResultGPU[i]);
    if (put_delta > max_delta) max_delta = put_delta;
  }
  const double L1norm = sum_delta / sum_ref;
  printf("L1 norm: %E\n", L1norm);
  printf("Max absolute error: %E\n\n", max_delta);

  printf("Shutting down...\n");
  checkCudaErrors(cudaFree(d_OptionYears));
  checkCudaErrors(cudaFree(d_OptionStrike));
  checkCudaErrors(cudaFree(d_StockPrice));
  checkCudaErrors(cudaFree(d_PutResult));
  checkCudaErrors(cudaFree(d_CallResult));
  free(h_OptionYears);
  free(h_OptionStrike);
  free(h_StockPrice);
  free(h_PutResultGPU);
  free(h_CallResultGPU);
  free(h_PutResultCPU);
  free(h_CallResultCPU);
  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));

  printf("Shutdown done.\n");
  printf("\n[BlackScholes] - Test Summary\n");
  if (L1norm > 1e-6 || max_delta > 1e-3) {
    printf("Test failed!\n");
    printf("FAIL\n");
    exit(EXIT_FAILURE);
  }
  printf("Test passed\n");
  printf("PASS\n");
  exit(EXIT_SUCCESS);
}
