#include "gpu.hpp"

#include <cstdlib>

#include "cuda_driver.hpp"

namespace gi::worker {

Gpu open_gpu() {
    Gpu gpu;
    const CUresult init = cuInit(0);
    if (init == CUDA_ERROR_NO_DEVICE) throw CudaError(init, "no CUDA device: cuInit found no GPU");
    check_cuda(init, "cuInit failed (is the NVIDIA driver loaded?)");
    int ordinal = 0;
    if (const char* env = std::getenv("GI_WORKER_DEVICE")) ordinal = std::atoi(env);
    cuDeviceGetCount(&gpu.devices);
    gpu.ordinal = ordinal;
    check_cuda(cuDeviceGet(&gpu.device, ordinal),
               "selecting GPU " + std::to_string(ordinal) + " (GI_WORKER_DEVICE) of the " + std::to_string(gpu.devices) + " this driver sees");
    check_cuda(cuDevicePrimaryCtxRetain(&gpu.context, gpu.device), "creating the CUDA context");
    check_cuda(cuCtxSetCurrent(gpu.context), "making the CUDA context current");
    check_cuda(cuStreamCreate(&gpu.stream, CU_STREAM_NON_BLOCKING), "creating a stream");
    char name[256] = {};
    cuDeviceGetName(name, sizeof name, gpu.device);
    gpu.name = name;
    int major = 0, minor = 0, l2 = 0;
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpu.device);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpu.device);
    cuDeviceGetAttribute(&gpu.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gpu.device);
    cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, gpu.device);
    gpu.compute_capability = major * 10 + minor;
    gpu.l2_bytes = static_cast<std::size_t>(l2);
    cuDeviceTotalMem(&gpu.memory_bytes, gpu.device);
    cuDriverGetVersion(&gpu.driver);
    return gpu;
}

}  // namespace gi::worker
