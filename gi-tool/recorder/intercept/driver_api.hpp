#pragma once
// The CUDA driver as the launch intercept calls it: the real entry points, never the intercept's
// own wrappers, found through the driver's cuGetProcAddress (the one the program's runtime was
// handed, else libcuda's export). Each is asked for by the CUDA version whose signature it is
// declared with here (CUDA 13 changed cuCtxSynchronize's, for one), so a newer driver hands out
// the function this code calls. A function the driver lacks is nullptr.
#include <cuda.h>
#include <cudaTypedefs.h>

namespace gi::intercept {

struct DriverApi {
    PFN_cuGetErrorString_v6000 get_error_string = nullptr;
    PFN_cuCtxSynchronize_v2000 ctx_synchronize = nullptr;
    PFN_cuCtxGetDevice_v2000 ctx_get_device = nullptr;
    PFN_cuDeviceGetName_v2000 device_get_name = nullptr;
    PFN_cuDeviceGetAttribute_v2000 device_get_attribute = nullptr;
    PFN_cuPointerGetAttributes_v7000 pointer_get_attributes = nullptr;
    PFN_cuMemGetAddressRange_v3020 mem_get_address_range = nullptr;
    PFN_cuMemcpyDtoH_v3020 memcpy_dtoh = nullptr;
    PFN_cuStreamIsCapturing_v10000 stream_is_capturing = nullptr;
    PFN_cuTexObjectGetResourceDesc_v5000 tex_object_get_resource_desc = nullptr;
    PFN_cuSurfObjectGetResourceDesc_v5000 surf_object_get_resource_desc = nullptr;
    PFN_cuFuncGetName_v12030 func_get_name = nullptr;
    PFN_cuFuncGetParamInfo_v12040 func_get_param_info = nullptr;
    PFN_cuFuncGetModule_v11000 func_get_module = nullptr;
    PFN_cuModuleGetGlobal_v3020 module_get_global = nullptr;
    PFN_cuKernelGetName_v12030 kernel_get_name = nullptr;
    PFN_cuKernelGetFunction_v12000 kernel_get_function = nullptr;
    PFN_cuKernelGetParamInfo_v12040 kernel_get_param_info = nullptr;
    PFN_cuKernelGetLibrary_v12050 kernel_get_library = nullptr;
    PFN_cuLibraryGetGlobal_v12000 library_get_global = nullptr;
};

// The driver's functions, looked up at the first call (which must come after the driver is
// loaded: from a launch); nullptr when no driver is found.
const DriverApi* driver();

// The driver's error text for `status` ("CUDA_ERROR_INVALID_VALUE: invalid argument").
const char* error_text(CUresult status);

// The real cuGetProcAddress entry points, as the program's runtime asked dlsym for them (or
// libcuda exports them), remembered by the hooks (hooks.cpp) and used here.
using GetProcAddressV2 = PFN_cuGetProcAddress_v12000;
using GetProcAddressV1 = PFN_cuGetProcAddress_v11030;
void remember_get_proc_address(GetProcAddressV2 v2, GetProcAddressV1 v1);
GetProcAddressV2 real_get_proc_address_v2();
GetProcAddressV1 real_get_proc_address_v1();

// glibc's dlsym, not the intercept's.
void* real_dlsym(void* handle, const char* symbol);

// glibc's dlsym as `caller` (a return address into the program's code) called it: RTLD_NEXT means
// the objects after the caller's, not after this library.
void* caller_dlsym(void* handle, const char* symbol, void* caller);

// A function of libcuda by its exported name (the driver the program links or its runtime
// loaded); nullptr when there is none.
void* libcuda_symbol(const char* symbol);

}  // namespace gi::intercept
