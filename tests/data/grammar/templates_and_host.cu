// Several kernels, templates, namespaces, extern "C", and host code around them.
#include <vector>
#include <algorithm>

#define THREADS 128
#define SCALE(x) ((x) * 2.0f)

namespace util {
template <typename T>
struct Pair { T first; T second; };

template <typename T>
__host__ __device__ inline T clamp_value(T v, T lo, T hi) {
    return v < lo ? lo : (v > hi ? hi : v);
}
}  // namespace util

__device__ float helper_unused(float x) { return x * 3.0f; }

__device__ float twice(float x) {
    float y = SCALE(x);
    return y;
}

template <int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK, 2)
scale_kernel(T* __restrict__ out,
             const T* __restrict__ in,
             const int n,
             float factor)
{
    int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= n) return;
    util::Pair<T> p{in[i], in[i]};
    out[i] = util::clamp_value<T>(p.first * factor, T(0), T(1));
    out[i] = twice(out[i]);
}

extern "C" __global__ void plain_kernel(float *data, int n)
{
    std::size_t idx = blockIdx.x * THREADS + threadIdx.x;
    if (idx < n)
        data[idx] = idx;
}

static __global__ void staticKernel(int* a) { a[threadIdx.x] = 1; }

__global__ void declared_only(int* a);

class HostRunner {
public:
    explicit HostRunner(int n) : values_(n) {}
    void run() {
        std::vector<int> sizes{1, 2, 3};
        auto by_two = [](int v) { return v * 2; };
        std::transform(sizes.begin(), sizes.end(), sizes.begin(), by_two);
        auto device_lambda = [] __device__ (int v) { return v + 1; };
        (void)device_lambda;
    }
private:
    std::vector<float> values_;
};

int main() {
    HostRunner runner(4);
    runner.run();
    return 0;
}
