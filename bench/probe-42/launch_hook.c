// Issue 42 feasibility probe (not part of gi-optimize): which driver entry points does a CUDA
// program's runtime use to launch kernels, and can an LD_PRELOAD library see those launches
// whether the program links the runtime statically (CMake's default) or shared? The library logs
// every dlsym of a "cu*" symbol and every cuGetProcAddress request, and wraps the launch entry
// points it hands out, logging each launch with the kernel's name (cuFuncGetName).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <cuda.h>

typedef void* (*dlsym_fn)(void*, const char*);
typedef CUresult (*proc_v2_fn)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**);
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig*, CUfunction, void**, void**);
typedef CUresult (*name_fn)(const char**, CUfunction);

static dlsym_fn real_dlsym_fn(void) {
    static dlsym_fn real = 0;
    if (!real) real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!real) real = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    return real;
}

static FILE* out(void) {
    static FILE* f = 0;
    if (!f) {
        const char* path = getenv("PROBE_LOG");
        f = path ? fopen(path, "a") : stderr;
        if (!f) f = stderr;
    }
    return f;
}

static proc_v2_fn real_proc_v2 = 0;
static launch_fn real_launch = 0, real_launch_ptsz = 0;
static launch_ex_fn real_launch_ex = 0, real_launch_ex_ptsz = 0;

static const char* kernel_name(CUfunction f) {
    static name_fn get = 0;
    const char* name = "?";
    if (!get && real_proc_v2) real_proc_v2("cuFuncGetName", (void**)&get, 12030, 0, 0);
    if (get) get(&name, f);
    return name;
}

static CUresult hook_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                            unsigned shared, CUstream s, void** params, void** extra) {
    fprintf(out(), "launch cuLaunchKernel %s grid %u,%u,%u block %u,%u,%u params %p\n", kernel_name(f), gx, gy, gz, bx, by, bz,
            (void*)params);
    return real_launch(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
static CUresult hook_launch_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                                 unsigned shared, CUstream s, void** params, void** extra) {
    fprintf(out(), "launch cuLaunchKernel_ptsz %s\n", kernel_name(f));
    return real_launch_ptsz(f, gx, gy, gz, bx, by, bz, shared, s, params, extra);
}
static CUresult hook_launch_ex(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    fprintf(out(), "launch cuLaunchKernelEx %s grid %u block %u\n", kernel_name(f), c->gridDimX, c->blockDimX);
    return real_launch_ex(c, f, params, extra);
}
static CUresult hook_launch_ex_ptsz(const CUlaunchConfig* c, CUfunction f, void** params, void** extra) {
    fprintf(out(), "launch cuLaunchKernelEx_ptsz %s\n", kernel_name(f));
    return real_launch_ex_ptsz(c, f, params, extra);
}

// Swaps a launch entry point the caller asked for with its wrapper.
static void wrap(const char* symbol, int flags, void** pfn) {
    int ptsz = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    if (!*pfn) return;
    if (strcmp(symbol, "cuLaunchKernel") == 0) {
        if (ptsz) { real_launch_ptsz = (launch_fn)*pfn; *pfn = (void*)hook_launch_ptsz; }
        else { real_launch = (launch_fn)*pfn; *pfn = (void*)hook_launch; }
    } else if (strcmp(symbol, "cuLaunchKernelEx") == 0) {
        if (ptsz) { real_launch_ex_ptsz = (launch_ex_fn)*pfn; *pfn = (void*)hook_launch_ex_ptsz; }
        else { real_launch_ex = (launch_ex_fn)*pfn; *pfn = (void*)hook_launch_ex; }
    }
}

static CUresult hook_proc_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
    CUresult r = real_proc_v2(symbol, pfn, version, flags, status);
    if (strncmp(symbol, "cuLaunch", 8) == 0 || strncmp(symbol, "cuGetProcAddress", 16) == 0)
        fprintf(out(), "cuGetProcAddress_v2 %s version %d flags %llu -> %d\n", symbol, version, (unsigned long long)flags, (int)r);
    if (r == CUDA_SUCCESS) wrap(symbol, (int)flags, pfn);
    if (r == CUDA_SUCCESS && strcmp(symbol, "cuGetProcAddress") == 0) *pfn = (void*)hook_proc_v2;
    return r;
}

void* dlsym(void* handle, const char* symbol) {
    void* p = real_dlsym_fn()(handle, symbol);
    if (symbol && strncmp(symbol, "cu", 2) == 0) {
        fprintf(out(), "dlsym %s -> %p\n", symbol, p);
        if (p && strcmp(symbol, "cuGetProcAddress_v2") == 0) {
            real_proc_v2 = (proc_v2_fn)p;
            return (void*)hook_proc_v2;
        }
    }
    return p;
}

// The driver's own public entry points, for programs that call the driver API directly.
CUresult cuGetProcAddress_v2(const char* symbol, void** pfn, int version, cuuint64_t flags,
                             CUdriverProcAddressQueryResult* status) {
    if (!real_proc_v2) real_proc_v2 = (proc_v2_fn)real_dlsym_fn()(RTLD_NEXT, "cuGetProcAddress_v2");
    return hook_proc_v2(symbol, pfn, version, flags, status);
}
