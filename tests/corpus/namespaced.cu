// Kernels inside a library's namespaces, with a device helper beside them.
#define THREADS 128

namespace imaging {
namespace detail {

__device__ inline float luminance(float r, float g, float b) { return 0.299f * r + 0.587f * g + 0.114f * b; }

}  // namespace detail

__global__ void to_grey(float* grey, const float* rgb, int pixels)
{
    const int p = blockIdx.x * THREADS + threadIdx.x;
    if (p >= pixels) return;
    const float r = rgb[3 * p];
    const float g = rgb[3 * p + 1];
    const float b = rgb[3 * p + 2];
    grey[p] = detail::luminance(r, g, b);
}

}  // namespace imaging
