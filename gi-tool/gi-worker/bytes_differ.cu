// gi-worker's one kernel of its own, built to PTX when gi-worker is built (CMakeLists.txt) and
// JIT-compiled by the driver for whatever GPU the worker opens. It tells whether two device buffers
// hold the same bytes, so a variant whose outputs equal the original's byte for byte (most of a
// search's correct variants) is judged without copying its outputs to the host.
//
// `differs` is set to 1 when any byte differs and never cleared here: the caller zeroes it first.
// Buffers from cuMemAlloc are 256-byte aligned, so the 16-byte loads are aligned; a tail shorter
// than 16 bytes is compared byte by byte.
extern "C" __global__ void gi_bytes_differ(const uint4* a, const uint4* b, unsigned long long words,
                                           const unsigned char* tail_a, const unsigned char* tail_b,
                                           unsigned int tail_bytes, unsigned int* differs) {
    const unsigned long long stride = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
    bool found = false;
    for (unsigned long long i = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < words; i += stride) {
        const uint4 x = a[i], y = b[i];
        found |= (x.x != y.x) | (x.y != y.y) | (x.z != y.z) | (x.w != y.w);
    }
    if (blockIdx.x == 0 && threadIdx.x < tail_bytes) found |= tail_a[threadIdx.x] != tail_b[threadIdx.x];
    if (__syncthreads_or(found) && threadIdx.x == 0) *differs = 1u;
}
