#include "case_builder.hpp"

#include <cstdio>
#include <cstring>

#include "gi/launch_args.hpp"

namespace gi::launch_detail {
namespace {

std::string hex(std::uintptr_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

}  // namespace

Allocation CaseBuilder::argument_allocation(const void* pointer, const std::string& what) {
    const MemoryQuery memory = device_.memory(pointer);
    switch (memory.kind) {
        case MemoryKind::Unknown:
            throw RecordError(what + " is a pointer the CUDA runtime does not know (" + memory.error +
                              "); pass device memory from cudaMalloc");
        case MemoryKind::Host:
            throw RecordError(what + " points to host memory; a kernel argument the recorder can "
                              "capture must point into device memory from cudaMalloc");
        case MemoryKind::PinnedHost:
            throw RecordError(what + " points to pinned host memory (cudaMallocHost/cudaHostRegister), "
                              "which the recorder cannot replay; copy it to device memory for the recorder run");
        case MemoryKind::Device:
        case MemoryKind::Managed: break;
    }
    if (!device_.sizes_allocations())
        throw RecordError(what + ": the driver's cuMemGetAddressRange is not available, so the "
                          "allocation cannot be sized (update the NVIDIA driver)");
    const auto a = device_.allocation(reinterpret_cast<std::uintptr_t>(pointer));
    if (!a)
        throw RecordError(what + std::string(memory.kind == MemoryKind::Managed ? " (managed memory)" : "") +
                          ": the driver cannot tell the allocation it points into, so it cannot be snapshot; "
                          "use plain cudaMalloc memory for the recorder run");
    return *a;
}

int CaseBuilder::buffer_for(std::uintptr_t pointer, const std::string& what, ElementType element) {
    if (const int b = known(pointer); b >= 0) return b;
    const MemoryKind kind = device_.memory(reinterpret_cast<const void*>(pointer)).kind;
    if (kind == MemoryKind::PinnedHost)
        throw RecordError(what + " points to pinned host memory (cudaMallocHost/cudaHostRegister), which the "
                          "recorder cannot replay; use device memory for the recorder run");
    if (kind != MemoryKind::Device && kind != MemoryKind::Managed)
        throw RecordError(what + " holds " + hex(pointer) + ", which is not device memory (a host pointer, or an "
                          "unset element: zero unused elements with cudaMemset)");
    const auto a = device_.allocation(pointer);
    if (!a)
        throw RecordError(what + " points into memory the driver cannot size (" + hex(pointer) +
                          "); use plain cudaMalloc memory for the recorder run");
    return add(*a, element, "", false);
}

int CaseBuilder::maybe_buffer_for(std::uintptr_t value, const std::string& what) {
    // Below the first page or beyond the 57-bit user address space: a number, not a pointer.
    if (value < 4096 || value >= (std::uintptr_t{1} << 57)) return -1;
    if (const int b = known(value); b >= 0) return b;
    const std::uintptr_t page = value >> 16;
    if (not_device_pages_.count(page)) return -1;
    const MemoryKind kind = device_.memory(reinterpret_cast<const void*>(value)).kind;
    if (kind == MemoryKind::PinnedHost)
        throw RecordError(what + " holds a pointer to pinned host memory (" + hex(value) + "), which the recorder "
                          "cannot replay; use device memory for the recorder run");
    const auto a = kind == MemoryKind::Device || kind == MemoryKind::Managed ? device_.allocation(value) : std::nullopt;
    if (!a) {
        not_device_pages_.insert(page);
        return -1;
    }
    return add(*a, ElementType::Bytes, "", false);
}

int CaseBuilder::known(std::uintptr_t pointer) const {
    for (std::size_t b = 0; b < places_.size(); ++b)
        if (places_[b].contains(pointer)) return static_cast<int>(b);
    return -1;
}

int CaseBuilder::add(const Allocation& a, ElementType element, const std::string& variable, bool read_only) {
    places_.push_back(a);
    CaseBuffer buffer;
    buffer.size = a.size;
    buffer.element = element;
    buffer.variable = variable;
    buffer.read_only = read_only;
    tc_.buffers.push_back(std::move(buffer));
    return static_cast<int>(places_.size() - 1);
}

std::vector<EmbeddedPointer> find_pointers(CaseBuilder& builder, const Bytes& bytes, bool every_word,
                                           const std::string& what) {
    std::vector<EmbeddedPointer> found;
    for (std::size_t at = 0; at + sizeof(std::uintptr_t) <= bytes.size(); at += sizeof(std::uintptr_t)) {
        std::uintptr_t value = 0;
        std::memcpy(&value, bytes.data() + at, sizeof value);
        if (value == 0) continue;
        const std::string word = what + " (byte " + std::to_string(at) + ")";
        const int b = every_word ? builder.buffer_for(value, word, ElementType::Bytes) : builder.maybe_buffer_for(value, word);
        if (b >= 0) found.push_back(builder.embedded(at, b, value));
    }
    return found;
}

}  // namespace gi::launch_detail
