#pragma once
// The recording of one launch, whichever way it was seen (gi::launch in the program, or gi-tool's
// preloaded launch intercept): find everything the kernel reads (the allocations its pointer
// arguments point into, device pointers held inside struct arguments and arrays, the module
// variables GI_RECORD_GLOBALS names), snapshot it before and after the launch, and write the case
// atomically into GI_RECORD_DIR (testcase/case_io), unless a case with the same inputs
// (testcase/case_fingerprint) was recorded already or the kernel's limit is reached; then it only
// launches. Only reached when GI_RECORD_DIR is set.
#include <cstddef>
#include <functional>

#include "gi/launch_args.hpp"
#include "recording_device.hpp"
#include "testcase/test_case.hpp"

namespace gi::launch_detail {

struct LaunchToRecord {
    const char* name = "";          // the case's kernel name (what gi-tool record counts)
    Dim3 grid, block;
    std::size_t shared_bytes = 0;
    const ArgInfo* args = nullptr;  // one per kernel parameter, in order
    std::size_t count = 0;
};

// Records `launch` and makes it by calling `run`, which returns the API's status (0: launched).
// Returns that status, or the device's when synchronising before or after fails (nothing is
// recorded then). Throws RecordError, naming the kernel and the argument, when an argument cannot
// be captured or the case cannot be written. One launch at a time in a process.
int record_launch_with(RecordingDevice& device, const LaunchToRecord& launch, const std::function<int()>& run);

}  // namespace gi::launch_detail
