#pragma once
// One kernel launch as the intercept's hooks see it (hooks.cpp), whichever entry point made it:
// when recording is on and the launched kernel is the registered one, its arguments are described
// from the kernel's demangled name (or its source signature) and the driver's parameter layout,
// and the launch is recorded through the recording core (record_core.hpp), which makes it; every
// other launch is only made. Every kernel launched is listed once in GI_RECORD_DIR's
// launched-kernels.txt; a launch that cannot be recorded is said on standard error and in
// intercept-errors.txt (record/intercept_settings.hpp), and recording stops there.
#include <cuda.h>

#include <functional>
#include <string>

namespace gi::intercept {

struct LaunchCall {
    CUfunction function = nullptr;       // or a CUkernel cast to one
    unsigned grid[3] = {1, 1, 1};
    unsigned block[3] = {1, 1, 1};
    unsigned shared_bytes = 0;
    CUstream stream = nullptr;
    bool per_thread_stream = false;      // through a _ptsz entry point: stream 0 is the thread's own
    void** params = nullptr;
    void** extra = nullptr;
    std::string refused;                 // why replay could not reproduce this launch ("" when it can)
};

// Whether the intercept works in this process: GI_RECORD_DIR and GI_RECORD_FUNCTION set and
// GI_RECORD_BY=intercept. Cheap (no allocation), so the hooks may ask from dlsym.
bool intercept_enabled();

// Makes the launch through `run`, recording it first when it is the registered kernel's. Returns
// what `run` returns (or the driver's error when synchronising around it fails).
CUresult intercept_launch(const LaunchCall& call, const std::function<CUresult()>& run);

}  // namespace gi::intercept
