#pragma once
// The device as the recording core sees it (recording_device.hpp), through the driver API alone:
// the launch intercept lives in programs whose CUDA runtime may be linked statically, so it has no
// runtime to call and must not load one of its own.
#include "driver_api.hpp"
#include "recording_device.hpp"

namespace gi::intercept {

// The kernel a launch names: a function of a module, or a kernel of a library (CUDA 12's
// context-independent handle, which the runtime may launch with); `function` is its function in
// the current context either way when the driver can give one.
struct LaunchedHandle {
    CUfunction function = nullptr;
    CUkernel kernel = nullptr;
};

class DriverDevice final : public launch_detail::RecordingDevice {
public:
    DriverDevice(const DriverApi& api, LaunchedHandle handle, std::string symbol)
        : api_(api), handle_(handle), symbol_(std::move(symbol)) {}

    const char* who() const override { return "gi-intercept recording"; }
    int synchronise() override;
    launch_detail::MemoryQuery memory(const void* pointer) override;
    bool sizes_allocations() override { return api_.mem_get_address_range != nullptr; }
    std::optional<launch_detail::Allocation> allocation(std::uintptr_t pointer) override;
    std::string copy_to_host(void* host, std::uintptr_t device, std::size_t size) override;
    void identify(std::string& name, int& compute_capability) override;
    std::string kernel_symbol() override { return symbol_; }
    bool finds_module() override;
    std::optional<launch_detail::Allocation> module_variable(const std::string& name) override;
    launch_detail::ObjectKind object_kind(unsigned long long handle) override;

private:
    const DriverApi& api_;
    LaunchedHandle handle_;
    std::string symbol_;
    CUmodule module_ = nullptr;
    CUlibrary library_ = nullptr;
};

}  // namespace gi::intercept
