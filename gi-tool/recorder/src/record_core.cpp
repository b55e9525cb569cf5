#include "record_core.hpp"

#include <cstdlib>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "case_builder.hpp"
#include "recordings.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi::launch_detail {
namespace {

static_assert(static_cast<int>(Element::F64) == static_cast<int>(ElementType::F64) &&
                  static_cast<int>(Element::Bytes) == static_cast<int>(ElementType::Bytes),
              "gi::launch_detail::Element must mirror gi::ElementType");

// "gi::launch recording 'k'", and with an argument: "gi::launch recording 'k': argument 2".
struct Naming {
    std::string head;
    std::string argument(std::size_t index) const { return head + ": argument " + std::to_string(index); }
};

Bytes snapshot(RecordingDevice& device, const Allocation& a, const Naming& naming, SnapshotMemory& memory) {
    Bytes bytes = memory.take(a.size);
    if (const std::string error = device.copy_to_host(bytes.data(), a.base, a.size); !error.empty())
        throw RecordError(naming.head + ": copying an argument's allocation to the host: " + error);
    return bytes;
}

void reject_texture_or_surface(RecordingDevice& device, unsigned long long handle, const std::string& what) {
    if (handle == 0) return;
    switch (device.object_kind(handle)) {
        case ObjectKind::Texture:
            throw RecordError(what + " is a texture object, which the recorder cannot capture; "
                              "pass the underlying device pointer to the kernel instead");
        case ObjectKind::Surface:
            throw RecordError(what + " is a surface object, which the recorder cannot capture; "
                              "pass the underlying device pointer to the kernel instead");
        case ObjectKind::None: break;
    }
}

// The module variables GI_RECORD_GLOBALS names that the kernel's module defines, captured as buffers.
void capture_variables(RecordingDevice& device, CaseBuilder& builder, const Naming& naming) {
    const std::vector<ModuleVariable>& wanted = requested_variables();
    if (wanted.empty()) return;
    if (!device.finds_module())
        throw RecordError(naming.head + ": cannot find the kernel's module to capture its "
                          "__constant__/__device__ variables (the driver lacks cuFuncGetModule; update the NVIDIA driver)");
    for (const ModuleVariable& v : wanted) {
        // A variable another file defines is not this kernel's state: its module does not have it.
        const auto place = device.module_variable(v.name);
        if (!place || place->size == 0) continue;
        builder.add_variable(v, *place);
    }
}

// Buffers whose contents are scanned for pointers once their bytes are read: (buffer, every word
// must be a pointer, what to call it).
using ScanList = std::vector<std::tuple<int, bool, std::string>>;

CaseArg pointer_arg(const ArgInfo& info, std::size_t i, CaseBuilder& builder, TestCase& tc, const Naming& naming,
                    ScanList& to_scan) {
    CaseArg arg;
    arg.size = static_cast<std::uint32_t>(info.size);
    arg.element = static_cast<ElementType>(info.element);
    const void* pointer = *static_cast<const void* const*>(info.value);
    arg.is_const = info.pointee_const;
    if (pointer == nullptr) {
        arg.kind = CaseArg::Kind::Null;
        return arg;
    }
    arg.kind = CaseArg::Kind::Pointer;
    const auto address = reinterpret_cast<std::uintptr_t>(pointer);
    int b = builder.known(address);
    if (b < 0) b = builder.add_argument_allocation(builder.argument_allocation(pointer, naming.argument(i)), arg.element);
    CaseBuffer& buffer = tc.buffers[b];
    if (buffer.element == ElementType::Bytes && buffer.variable.empty()) buffer.element = arg.element;
    if (!info.pointee_const && buffer.variable.empty()) buffer.read_only = false;
    arg.buffer = b;
    arg.offset = builder.offset_in(b, address);
    if (info.holds != Holds::Data)
        to_scan.emplace_back(b, info.holds == Holds::Pointers,
                             naming.argument(i) + (info.holds == Holds::Pointers ? " (an array of pointers)"
                                                                                 : " (an array of structs)"));
    return arg;
}

CaseArg scalar_arg(const ArgInfo& info, std::size_t i, RecordingDevice& device, CaseBuilder& builder,
                   const Naming& naming) {
    CaseArg arg;
    arg.size = static_cast<std::uint32_t>(info.size);
    arg.element = static_cast<ElementType>(info.element);
    if (info.maybe_object)
        reject_texture_or_surface(device, *static_cast<const unsigned long long*>(info.value), naming.argument(i));
    arg.kind = CaseArg::Kind::Scalar;
    const auto* bytes = static_cast<const unsigned char*>(info.value);
    arg.value.assign(bytes, bytes + info.size);
    if (info.holds == Holds::MaybePointers)
        arg.pointers = find_pointers(builder, arg.value, false, naming.argument(i) + " (a struct)");
    return arg;
}

std::mutex recorder_mutex;
Recordings recordings;

}  // namespace

int record_launch_with(RecordingDevice& device, const LaunchToRecord& launch, const std::function<int()>& run) {
    std::lock_guard lock(recorder_mutex);
    const std::filesystem::path dir = std::getenv("GI_RECORD_DIR");
    const Naming naming{std::string(device.who()) + " '" + launch.name + "'"};
    KernelRecording& recording = recordings.of(launch.name, dir, device.who());
    if (recording.limit_reached()) {
        recordings.memory.release();
        return run();
    }

    // Earlier asynchronous work must be finished before the snapshot, and its errors are not ours.
    if (const int status = device.synchronise(); status != 0) return status;

    TestCase tc;
    tc.kernel = launch.name;
    tc.grid = launch.grid;
    tc.block = launch.block;
    tc.shared_bytes = static_cast<std::uint32_t>(launch.shared_bytes);
    device.identify(tc.device, tc.compute_capability);

    CaseBuilder builder(tc, device);
    tc.symbol = device.kernel_symbol();
    // Variables first: a pointer argument into one of them (cudaGetSymbolAddress) then shares its buffer.
    capture_variables(device, builder, naming);
    ScanList to_scan;
    for (std::size_t i = 0; i < launch.count; ++i) {
        const ArgInfo& info = launch.args[i];
        tc.args.push_back(info.is_pointer ? pointer_arg(info, i, builder, tc, naming, to_scan)
                                          : scalar_arg(info, i, device, builder, naming));
    }
    // Buffers found so far are snapshot; scanning may add more (the targets of embedded pointers),
    // whose bytes are read in the same loop.
    for (std::size_t b = 0; b < builder.count(); ++b) {
        Bytes before = snapshot(device, builder.place(static_cast<int>(b)), naming, recordings.memory);
        std::vector<EmbeddedPointer> pointers;
        for (const auto& [buffer, every_word, what] : to_scan)
            if (buffer == static_cast<int>(b) && pointers.empty()) pointers = find_pointers(builder, before, every_word, what);
        // find_pointers may have added buffers, so tc.buffers is indexed only now.
        tc.buffers[b].before = std::move(before);
        tc.buffers[b].pointers = std::move(pointers);
    }
    // A kernel that changes a pointer it was given would make replay's relocation wrong; such
    // buffers are compared as outputs, so a change shows as a mismatch rather than going unseen.

    // The same inputs as a case already recorded (a benchmark's timing loop): one more such case
    // would judge variants on nothing new, and would spend the limit meant for distinct launches.
    const CaseFingerprint fingerprint = case_fingerprint(tc);
    if (recording.seen.count(fingerprint)) {
        ++recording.skipped;
        recordings.memory.keep(tc);
        return run();
    }

    if (const int status = run(); status != 0) return status;
    // A launch that fails records nothing: a failing original is no oracle.
    if (const int status = device.synchronise(); status != 0) return status;
    for (std::size_t b = 0; b < builder.count(); ++b) {
        CaseBuffer& buffer = tc.buffers[b];
        buffer.after = snapshot(device, builder.place(static_cast<int>(b)), naming, recordings.memory);
        buffer.changed = buffer.after != buffer.before;
    }
    try {
        write_test_case(tc, dir);
    } catch (const Error& e) {
        throw RecordError(naming.head + ": " + e.what());
    }
    ++recording.recorded;
    recording.seen.insert(fingerprint);
    return 0;
}

}  // namespace gi::launch_detail
