// convolutionSeparable: filters a random image with a separable 17-tap filter on the GPU (a row
// pass, then a column pass), times the row pass over many iterations and checks the result
// against the CPU reference. Prints PASS or FAIL; exits nonzero on FAIL (EXIT_WAIVED without a GPU).
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <helper_cuda.h>
#include <helper_functions.h>

#include "convolutionSeparable_common.h"

static const char *const kUsage =
    "usage: convolutionSeparable [--width=W] [--height=H] [--iterations=N] [--seed=S] [--device=D]\n"
    "  Convolves a W x H random image (W a multiple of %d, H of %d; default 3072 x 3072) with a\n"
    "  separable 17-tap filter, runs the row pass N times (default 300) to time it, and checks the\n"
    "  rows-then-columns result against the CPU. Values may also follow the option: --width 1024.\n";

int main(int argc, const char **argv) {
  static const char *const known[] = {"help", "width", "height", "iterations", "seed", "device", nullptr};
  if (checkCmdLineFlag(argc, argv, "help")) {
    printf(kUsage, IMAGE_W_MULTIPLE, IMAGE_H_MULTIPLE);
    return EXIT_SUCCESS;
  }
  checkCmdLineKnown(argc, argv, known);
  const int imageW = getCmdLineArgumentInt(argc, argv, "width", 3072, IMAGE_W_MULTIPLE, 16384);
  const int imageH = getCmdLineArgumentInt(argc, argv, "height", 3072, IMAGE_H_MULTIPLE, 16384);
  const int iterations = getCmdLineArgumentInt(argc, argv, "iterations", 300, 1, 1000000);
  const unsigned seed = static_cast<unsigned>(getCmdLineArgumentInt(argc, argv, "seed", 200));
  if (imageW % IMAGE_W_MULTIPLE || imageH % IMAGE_H_MULTIPLE) {
    fprintf(stderr, "the image must be a multiple of %d x %d pixels, got %d x %d\n", IMAGE_W_MULTIPLE,
            IMAGE_H_MULTIPLE, imageW, imageH);
    return EXIT_FAILURE;
  }

  printf("[%s] - Starting...\n", argv[0]);
  findCudaDevice(getCmdLineArgumentInt(argc, argv, "device", 0));

  const size_t pixels = static_cast<size_t>(imageW) * imageH;
  std::vector<float> h_Kernel(KERNEL_LENGTH), h_Input(pixels), h_Buffer(pixels), h_OutputCPU(pixels),
      h_OutputGPU(pixels);
  srand(seed);
  for (int i = 0; i < KERNEL_LENGTH; i++) h_Kernel[i] = static_cast<float>(rand() % 16);
  for (size_t i = 0; i < pixels; i++) h_Input[i] = static_cast<float>(rand() % 16);

  float *d_Input, *d_Output, *d_Buffer;
  checkCudaErrors(cudaMalloc(&d_Input, pixels * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_Output, pixels * sizeof(float)));
  checkCudaErrors(cudaMalloc(&d_Buffer, pixels * sizeof(float)));
  setConvolutionKernel(h_Kernel.data());
  checkCudaErrors(cudaMemcpy(d_Input, h_Input.data(), pixels * sizeof(float), cudaMemcpyHostToDevice));

  printf("Running GPU rows convolution (%d identical iterations)...\n\n", iterations);
  // One warm-up pass, then the timed loop.
  convolutionRowsGPU(d_Buffer, d_Input, imageW, imageH);
  cudaEvent_t start, stop;
  checkCudaErrors(cudaEventCreate(&start));
  checkCudaErrors(cudaEventCreate(&stop));
  StopWatch hTimer;
  checkCudaErrors(cudaDeviceSynchronize());
  hTimer.start();
  checkCudaErrors(cudaEventRecord(start));
  for (int i = 0; i < iterations; i++) convolutionRowsGPU(d_Buffer, d_Input, imageW, imageH);
  checkCudaErrors(cudaEventRecord(stop));
  checkCudaErrors(cudaEventSynchronize(stop));
  hTimer.stop();
  float elapsed = 0;
  checkCudaErrors(cudaEventElapsedTime(&elapsed, start, stop));
  const double perIteration = elapsed / iterations;
  printf("convolutionSeparable, Throughput = %.4f MPixels/sec, Time = %.5f s, Size = %zu Pixels, "
         "NumDevsUsed = 1\n",
         1.0e-6 * pixels / (perIteration * 1e-3), perIteration * 1e-3, pixels);
  printf("time per iteration: %.6f ms (host %.3f ms in all)\n\n", perIteration, hTimer.getTime());

  convolutionColumnsGPU(d_Output, d_Buffer, imageW, imageH);
  checkCudaErrors(cudaDeviceSynchronize());
  checkCudaErrors(cudaMemcpy(h_OutputGPU.data(), d_Output, pixels * sizeof(float), cudaMemcpyDeviceToHost));

  printf("Checking the results...\n");
  convolutionRowCPU(h_Buffer.data(), h_Input.data(), h_Kernel.data(), imageW, imageH, KERNEL_RADIUS);
  convolutionColumnCPU(h_OutputCPU.data(), h_Buffer.data(), h_Kernel.data(), imageW, imageH, KERNEL_RADIUS);
  double delta = 0, sum = 0;
  for (size_t i = 0; i < pixels; i++) {
    delta += (h_OutputGPU[i] - h_OutputCPU[i]) * (h_OutputGPU[i] - h_OutputCPU[i]);
    sum += h_OutputCPU[i] * h_OutputCPU[i];
  }
  const double L2norm = std::sqrt(delta / sum);
  printf(" ...Relative L2 norm: %E\n\n", L2norm);

  checkCudaErrors(cudaEventDestroy(start));
  checkCudaErrors(cudaEventDestroy(stop));
  checkCudaErrors(cudaFree(d_Buffer));
  checkCudaErrors(cudaFree(d_Output));
  checkCudaErrors(cudaFree(d_Input));

  const bool ok = L2norm < 1e-6;
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? EXIT_SUCCESS : EXIT_FAILURE;
}
