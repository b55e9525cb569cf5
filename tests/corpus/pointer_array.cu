// A kernel reading a device array of device pointers (one pointer per input row, each row its own
// allocation), as batched codes do; main() checks the sums on the CPU. --host-pointer puts a host
// pointer into the array, which the recorder must refuse (the kernel would fault on it).
//   pointer_array [--rows R] [--n N] [--seed S] [--host-pointer]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <gi/launch.hpp>

__global__ void sumRows(float* out, const float* const* rows, int count, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int r = 0; r < count; r++) sum += rows[r][i];
    out[i] = sum;
}

#define CHECK(call)                                                                            \
    do {                                                                                       \
        cudaError_t status_ = (call);                                                          \
        if (status_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "pointer_array: %s: %s\n", #call, cudaGetErrorString(status_)); \
            return 2;                                                                          \
        }                                                                                      \
    } while (0)

int main(int argc, char** argv) {
    int count = 6, n = 1 << 18;
    unsigned seed = 1;
    bool host_pointer = false;
    for (int i = 1; i < argc; i++) {
        if (!std::strcmp(argv[i], "--rows") && i + 1 < argc) count = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--n") && i + 1 < argc) n = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--seed") && i + 1 < argc) seed = static_cast<unsigned>(std::atoi(argv[++i]));
        else if (!std::strcmp(argv[i], "--host-pointer")) host_pointer = true;
        else return std::fprintf(stderr, "usage: pointer_array [--rows R] [--n N] [--seed S] [--host-pointer]\n"), 2;
    }
    std::vector<std::vector<float>> rows(count, std::vector<float>(n));
    std::vector<float*> d_rows(count);
    srand(seed);
    for (int r = 0; r < count; r++) {
        for (float& v : rows[r]) v = static_cast<float>(rand() % 1000) / 8.0f;
        CHECK(cudaMalloc(&d_rows[r], n * sizeof(float)));
        CHECK(cudaMemcpy(d_rows[r], rows[r].data(), n * sizeof(float), cudaMemcpyHostToDevice));
    }
    if (host_pointer) d_rows[1] = rows[1].data();
    float** d_table = nullptr;
    float* d_out = nullptr;
    CHECK(cudaMalloc(&d_table, count * sizeof(float*)));
    CHECK(cudaMemcpy(d_table, d_rows.data(), count * sizeof(float*), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&d_out, n * sizeof(float)));
    try {
        CHECK(gi::launch(sumRows, "sumRows", dim3((n + 127) / 128), dim3(128), 0, nullptr, d_out, d_table, count, n));
    } catch (const gi::RecordError& e) {
        std::fprintf(stderr, "pointer_array: %s\n", e.what());
        return 2;
    }
    std::vector<float> out(n);
    CHECK(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    int failures = 0;
    for (int i = 0; i < n; i++) {
        float sum = 0.0f;
        for (int r = 0; r < count; r++) sum += rows[r][i];
        if (out[i] != sum) failures++;
    }
    std::printf("pointer_array: %s (%d wrong sums)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
