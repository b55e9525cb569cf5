// helper_cuda.h: error checks and device selection shared by the sample programs, in the style of
// the CUDA samples' Common/helper_cuda.h (written anew for gi-optimize's tests).
#ifndef COMMON_HELPER_CUDA_H_
#define COMMON_HELPER_CUDA_H_

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

// A sample that cannot run here (no CUDA device) exits with this status, as the CUDA samples do.
#ifndef EXIT_WAIVED
#define EXIT_WAIVED 2
#endif

template <typename T>
void check(T result, char const *const func, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", file, line,
            static_cast<int>(result), cudaGetErrorName(result), func);
    exit(EXIT_FAILURE);
  }
}

// Checks the return value of a CUDA runtime call.
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

// Checks the last error a kernel launch left (launch configuration, missing kernel image...).
#define getLastCudaError(msg) __getLastCudaError(msg, __FILE__, __LINE__)

inline void __getLastCudaError(const char *errorMessage, const char *file, const int line) {
  cudaError_t err = cudaGetLastError();
  if (cudaSuccess != err) {
    fprintf(stderr, "%s(%i) : getLastCudaError() CUDA error : %s : (%d) %s.\n", file, line,
            errorMessage, static_cast<int>(err), cudaGetErrorString(err));
    exit(EXIT_FAILURE);
  }
}

// Picks device 0 (or --device=N), prints its name and compute capability. Without a CUDA device
// the sample is waived: it says so and exits with EXIT_WAIVED.
inline int findCudaDevice(int device) {
  int deviceCount = 0;
  cudaError_t status = cudaGetDeviceCount(&deviceCount);
  if (status != cudaSuccess || deviceCount == 0) {
    printf("No CUDA device found (%s): waiving the sample.\n",
           status != cudaSuccess ? cudaGetErrorString(status) : "device count 0");
    exit(EXIT_WAIVED);
  }
  if (device < 0 || device >= deviceCount) {
    fprintf(stderr, "--device=%d: there are %d CUDA device(s)\n", device, deviceCount);
    exit(EXIT_FAILURE);
  }
  checkCudaErrors(cudaSetDevice(device));
  cudaDeviceProp prop;
  checkCudaErrors(cudaGetDeviceProperties(&prop, device));
  printf("GPU Device %d: \"%s\" with compute capability %d.%d\n\n", device, prop.name, prop.major,
         prop.minor);
  return device;
}

#endif  // COMMON_HELPER_CUDA_H_
