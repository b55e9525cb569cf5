#pragma once
// The device as the recording core sees it (record_core.hpp): synchronise, tell what an address
// is and which allocation holds it, copy device bytes to the host, name the GPU and the launched
// kernel, find the kernel module's variables. Two implementations: the CUDA runtime's, for
// gi::launch inside the program (record_launch.cpp), and the driver's, for gi-tool's preloaded
// launch intercept, which must not load a runtime of its own (intercept/driver_device.hpp).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace gi::launch_detail {

struct Allocation {
    std::uintptr_t base = 0;
    std::size_t size = 0;
    bool contains(std::uintptr_t p) const { return p >= base && p - base < size; }
};

// What the CUDA API says an address is.
enum class MemoryKind {
    Unknown,     // the query failed (`MemoryQuery::error` says why)
    Host,        // host memory CUDA does not know
    PinnedHost,  // cudaMallocHost / cudaHostRegister
    Device,
    Managed,
};

struct MemoryQuery {
    MemoryKind kind = MemoryKind::Unknown;
    std::string error;
};

// What a 64-bit handle passed by value is, besides a number.
enum class ObjectKind { None, Texture, Surface };

class RecordingDevice {
public:
    virtual ~RecordingDevice() = default;

    // How the core's messages start: "gi::launch recording".
    virtual const char* who() const = 0;
    // Waits for the device's work: 0 when it finished, else the API's error code, which the launch
    // returns to the program.
    virtual int synchronise() = 0;
    virtual MemoryQuery memory(const void* pointer) = 0;
    // False when the driver cannot size allocations at all (no cuMemGetAddressRange).
    virtual bool sizes_allocations() = 0;
    // The whole allocation holding `pointer`, or nullopt when the driver cannot tell it.
    virtual std::optional<Allocation> allocation(std::uintptr_t pointer) = 0;
    // "" when the bytes were copied, else the API's error text.
    virtual std::string copy_to_host(void* host, std::uintptr_t device, std::size_t size) = 0;
    // The current device's name and compute capability (major * 10 + minor); left as they are
    // when the API cannot say.
    virtual void identify(std::string& name, int& compute_capability) = 0;
    // The launched kernel's compiled (mangled) name; "" when the driver cannot say.
    virtual std::string kernel_symbol() = 0;
    // Whether the launched kernel's module can be asked for its variables.
    virtual bool finds_module() = 0;
    // A variable of the kernel's module by its compiled name; nullopt when the module lacks it.
    virtual std::optional<Allocation> module_variable(const std::string& name) = 0;
    virtual ObjectKind object_kind(unsigned long long handle) = 0;
};

}  // namespace gi::launch_detail
