// Included by scale.cuh beside it (a variant of scale.cuh, generated in the build folder, must find it).
#ifndef SCALE_MATH_CUH
#define SCALE_MATH_CUH
template <typename T>
__device__ inline T times(T value, int factor) { return value * static_cast<T>(factor); }
#endif
