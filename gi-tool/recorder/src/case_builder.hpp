#pragma once
// The case being recorded: its buffers and where each lives in this process's device memory. A
// buffer is the whole allocation an argument points into, one a pointer held in a struct or an
// array reaches, or a module variable; device pointers found inside bytes become EmbeddedPointers,
// so replay can relocate them.
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "compile/module_variables.hpp"
#include "recording_device.hpp"
#include "testcase/test_case.hpp"

namespace gi::launch_detail {

class CaseBuilder {
public:
    CaseBuilder(TestCase& tc, RecordingDevice& device) : tc_(tc), device_(device) {}

    // The allocation pointer argument `what` ("gi::launch recording 'k': argument 2") points
    // into. Throws RecordError when it is not device memory the driver can size.
    Allocation argument_allocation(const void* pointer, const std::string& what);

    // The buffer holding `pointer` (an argument, an array element, a struct field): one already
    // found, or a new one for its allocation. Throws RecordError (naming `what`) when it is not
    // device memory.
    int buffer_for(std::uintptr_t pointer, const std::string& what, ElementType element);

    // A new buffer for an allocation a pointer argument points into: read-only until a pointer to
    // non-const points into it.
    int add_argument_allocation(const Allocation& a, ElementType element) { return add(a, element, "", true); }

    // Like buffer_for for a word that may or may not be a device pointer (a struct field): -1
    // when it is not one. Pinned host memory in a struct is refused: the kernel would read it.
    int maybe_buffer_for(std::uintptr_t value, const std::string& what);

    // Kernels cannot write __constant__ memory; a __device__ variable may be an output.
    int add_variable(const ModuleVariable& v, const Allocation& place) {
        return add(place, ElementType::Bytes, v.name, v.constant);
    }

    // The buffer holding `pointer`, -1 when none does yet.
    int known(std::uintptr_t pointer) const;

    EmbeddedPointer embedded(std::uint64_t at, int buffer, std::uintptr_t value) const {
        return {at, buffer, value - places_[buffer].base};
    }
    std::uint64_t offset_in(int buffer, std::uintptr_t pointer) const { return pointer - places_[buffer].base; }
    const Allocation& place(int buffer) const { return places_[buffer]; }
    std::size_t count() const { return places_.size(); }

private:
    // Buffers reached through a struct or an array of pointers may be written through them, so
    // they are outputs (compared, restored) unless shown otherwise.
    int add(const Allocation& a, ElementType element, const std::string& variable, bool read_only);

    TestCase& tc_;
    RecordingDevice& device_;
    std::vector<Allocation> places_;                 // per buffer
    std::set<std::uintptr_t> not_device_pages_;      // 64 KiB pages a scan found no device memory in
};

// Device pointers among the 8-byte words of `bytes` (a struct argument or a buffer). With
// `every_word`, each non-null word must be one (an array of pointers).
std::vector<EmbeddedPointer> find_pointers(CaseBuilder& builder, const Bytes& bytes, bool every_word,
                                           const std::string& what);

}  // namespace gi::launch_detail
