// The kernel, a template on the element type, defined in a header that two sources include.
#ifndef SCALE_CUH
#define SCALE_CUH

#include "scale_math.cuh"

#define SCALE 2

template <typename T>
__global__ void scaleKernel(const T* in, T* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = times(in[i], SCALE);
}

#endif
