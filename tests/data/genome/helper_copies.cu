// A kernel and a helper for the cross-function copy tests.
__device__ int total;

template <int N>
__device__ int helper(const int* col, int i) {
    int s = 0;
    s += col[i];
    atomicAdd(&total, col[0]);
    return s;
}

template <int N>
__global__ void k(int* out, int n, int x) {
    int i = threadIdx.x;
    int s = 0;
    s += helper<N>(out, i);
    atomicAdd(&total, x);
    atomicAdd(&total, N * threadIdx.x);
    out[0] = n;
    s += x;
}
