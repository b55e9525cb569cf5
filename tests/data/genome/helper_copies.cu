// A kernel and a helper for the cross-function copy tests.
template <int N>
__device__ int helper(const int* col, int i) {
    int s = 0;
    s += col[i];
    return s;
}

template <int N>
__global__ void k(int* out, int n, int x) {
    int i = threadIdx.x;
    int s = 0;
    s += helper<N>(out, i);
    s += threadIdx.x;
    s += x;
    out[i] = s + N;
    s += out[0];
    s += N * threadIdx.x;
}
