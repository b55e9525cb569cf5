#include "device_compare.hpp"

#include <algorithm>

#include "bytes_differ_ptx.hpp"
#include "cuda_driver.hpp"

namespace gi::worker {
namespace {
constexpr unsigned kThreads = 256;
constexpr std::size_t kFirstCapacity = 16;
}  // namespace

DeviceCompare::DeviceCompare(CUstream stream, int sms) : stream_(stream), blocks_limit_(std::max(1, sms) * 8) {
    check_cuda(cuModuleLoadData(&module_, kBytesDifferPtx), "loading gi-worker's comparison kernel (PTX, JIT-compiled)");
    if (CUresult r = cuModuleGetFunction(&kernel_, module_, "gi_bytes_differ"); r != CUDA_SUCCESS) {
        cuModuleUnload(module_);
        check_cuda(r, "finding gi_bytes_differ in gi-worker's comparison kernel");
    }
    if (CUresult r = cuMemAlloc(&flags_, kFirstCapacity * sizeof(unsigned)); r != CUDA_SUCCESS) {
        cuModuleUnload(module_);
        check_cuda(r, "allocating the comparison kernel's flags");
    }
    capacity_ = kFirstCapacity;
}

DeviceCompare::~DeviceCompare() {
    if (flags_) cuMemFree(flags_);
    if (module_) cuModuleUnload(module_);
}

std::size_t DeviceCompare::queue(CUdeviceptr a, CUdeviceptr b, std::size_t bytes) {
    if (queued_ == capacity_) {
        // Grown between batches only: pairs already queued write into the flags they were given.
        check_cuda(cuStreamSynchronize(stream_), "waiting for queued comparisons");
        CUdeviceptr bigger = 0;
        check_cuda(cuMemAlloc(&bigger, 2 * capacity_ * sizeof(unsigned)), "allocating the comparison kernel's flags");
        check_cuda(cuMemcpyDtoD(bigger, flags_, queued_ * sizeof(unsigned)), "keeping the comparison kernel's flags");
        cuMemFree(flags_);
        flags_ = bigger;
        capacity_ *= 2;
    }
    const std::size_t index = queued_++;
    CUdeviceptr flag = flags_ + index * sizeof(unsigned);
    auto note = [&](CUresult r, const char* what) {
        if (r != CUDA_SUCCESS && first_error_ == CUDA_SUCCESS) {
            first_error_ = r;
            first_error_what_ = what;
        }
    };
    note(cuMemsetD32Async(flag, 0, 1, stream_), "clearing a comparison flag");
    unsigned long long words = bytes / 16;
    CUdeviceptr tail_a = a + words * 16, tail_b = b + words * 16;
    unsigned tail = static_cast<unsigned>(bytes % 16);
    const unsigned long long wanted = (words + kThreads - 1) / kThreads;
    const unsigned blocks = static_cast<unsigned>(std::clamp<unsigned long long>(wanted, 1, static_cast<unsigned long long>(blocks_limit_)));
    void* params[] = {&a, &b, &words, &tail_a, &tail_b, &tail, &flag};
    note(cuLaunchKernel(kernel_, blocks, 1, 1, kThreads, 1, 1, 0, stream_, params, nullptr), "launching the comparison kernel");
    return index;
}

std::vector<bool> DeviceCompare::differs() {
    std::vector<unsigned> host(queued_, 0);
    const std::size_t count = queued_;
    queued_ = 0;
    if (first_error_ != CUDA_SUCCESS) {
        const CUresult r = first_error_;
        first_error_ = CUDA_SUCCESS;
        check_cuda(r, first_error_what_);
    }
    if (count > 0) check_cuda(cuMemcpyDtoHAsync(host.data(), flags_, count * sizeof(unsigned), stream_), "reading the comparison flags");
    check_cuda(cuStreamSynchronize(stream_), "waiting for the comparison kernel");
    std::vector<bool> out(count);
    for (std::size_t i = 0; i < count; ++i) out[i] = host[i] != 0;
    return out;
}

}  // namespace gi::worker
