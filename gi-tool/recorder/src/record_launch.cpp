// The recording half of gi::launch: find everything the kernel reads (the allocations its pointer
// arguments point into, device pointers held inside struct arguments and arrays, the module
// variables GI_RECORD_GLOBALS names), snapshot it before and after the launch, and write the case
// atomically (testcase/case_io), unless a case with the same inputs (testcase/case_fingerprint) was
// recorded already. Only reached when GI_RECORD_DIR is set.
#include <cuda.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "compile/module_variables.hpp"
#include "gi/launch.hpp"
#include "testcase/case_fingerprint.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi::launch_detail {
namespace {

static_assert(static_cast<int>(Element::F64) == static_cast<int>(ElementType::F64) &&
                  static_cast<int>(Element::Bytes) == static_cast<int>(ElementType::Bytes),
              "gi::launch_detail::Element must mirror gi::ElementType");

std::string where(const char* name, std::size_t index) {
    return std::string("gi::launch recording '") + name + "': argument " + std::to_string(index);
}

std::string hex(std::uintptr_t value) {
    char text[32];
    std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
    return text;
}

// Driver functions through the runtime's entry point: the recorder then needs no link to libcuda,
// so a program using it still starts on a machine without the driver.
// `version`: the CUDA version that introduced the function (asking for an older one finds nothing).
template <typename Fn>
Fn driver_function(const char* symbol, unsigned version = 12000) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult status{};
#if CUDART_VERSION >= 12050
    cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &status);
#else
    (void)version;
    cudaGetDriverEntryPoint(symbol, &p, cudaEnableDefault, &status);
#endif
    return status == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(p) : nullptr;
}

using AddressRangeFn = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);
using FuncGetModuleFn = CUresult (*)(CUmodule*, CUfunction);
using FuncGetNameFn = CUresult (*)(const char**, CUfunction);
using ModuleGetGlobalFn = CUresult (*)(CUdeviceptr*, size_t*, CUmodule, const char*);

AddressRangeFn address_range_function() {
    static const AddressRangeFn fn = driver_function<AddressRangeFn>("cuMemGetAddressRange");
    return fn;
}

struct Allocation {
    std::uintptr_t base = 0;
    std::size_t size = 0;
    bool contains(std::uintptr_t p) const { return p >= base && p - base < size; }
};

// What the runtime says of an address that is not one of the case's buffers yet.
enum class Memory { Device, PinnedHost, NotDevice };

Memory classify(const void* pointer, cudaPointerAttributes& attributes) {
    attributes = {};
    if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
        cudaGetLastError();
        return Memory::NotDevice;
    }
    switch (attributes.type) {
        case cudaMemoryTypeDevice:
        case cudaMemoryTypeManaged: return Memory::Device;
        case cudaMemoryTypeHost: return Memory::PinnedHost;
        default: return Memory::NotDevice;
    }
}

// The whole allocation holding `pointer`, or nullopt when the driver cannot tell it.
std::optional<Allocation> allocation_range(std::uintptr_t pointer) {
    AddressRangeFn range = address_range_function();
    if (!range) return std::nullopt;
    CUdeviceptr base = 0;
    size_t size = 0;
    if (range(&base, &size, static_cast<CUdeviceptr>(pointer)) != CUDA_SUCCESS || size == 0) return std::nullopt;
    return Allocation{static_cast<std::uintptr_t>(base), size};
}

Allocation find_allocation(const void* pointer, const char* name, std::size_t index) {
    cudaPointerAttributes attributes{};
    const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
    if (status != cudaSuccess) {
        cudaGetLastError();
        throw RecordError(where(name, index) + " is a pointer the CUDA runtime does not know (" +
                          cudaGetErrorString(status) + "); pass device memory from cudaMalloc");
    }
    switch (attributes.type) {
        case cudaMemoryTypeUnregistered:
            throw RecordError(where(name, index) + " points to host memory; a kernel argument the recorder can "
                              "capture must point into device memory from cudaMalloc");
        case cudaMemoryTypeHost:
            throw RecordError(where(name, index) + " points to pinned host memory (cudaMallocHost/cudaHostRegister), "
                              "which the recorder cannot replay; copy it to device memory for the recorder run");
        case cudaMemoryTypeDevice:
        case cudaMemoryTypeManaged: break;
    }
    if (!address_range_function())
        throw RecordError(where(name, index) + ": the driver's cuMemGetAddressRange is not available, so the "
                          "allocation cannot be sized (update the NVIDIA driver)");
    const auto a = allocation_range(reinterpret_cast<std::uintptr_t>(pointer));
    if (!a)
        throw RecordError(where(name, index) + std::string(attributes.type == cudaMemoryTypeManaged ? " (managed memory)" : "") +
                          ": the driver cannot tell the allocation it points into, so it cannot be snapshot; "
                          "use plain cudaMalloc memory for the recorder run");
    return *a;
}

void reject_texture_or_surface(unsigned long long handle, const char* name, std::size_t index) {
    if (handle == 0) return;
    cudaResourceDesc desc{};
    if (cudaGetTextureObjectResourceDesc(&desc, handle) == cudaSuccess)
        throw RecordError(where(name, index) + " is a texture object, which the recorder cannot capture; "
                          "pass the underlying device pointer to the kernel instead");
    cudaGetLastError();
    if (cudaGetSurfaceObjectResourceDesc(&desc, handle) == cudaSuccess)
        throw RecordError(where(name, index) + " is a surface object, which the recorder cannot capture; "
                          "pass the underlying device pointer to the kernel instead");
    cudaGetLastError();
}

void check(cudaError_t status, const char* name, const std::string& what) {
    if (status != cudaSuccess)
        throw RecordError(std::string("gi::launch recording '") + name + "': " + what + ": " + cudaGetErrorString(status));
}

// Host memory for snapshots, kept from a launch that was not recorded for the next one: a timing
// loop's identical launches are each snapshot to be compared, and fresh memory of hundreds of
// megabytes costs as much to zero and fault in as the copy itself.
class SnapshotMemory {
public:
    Bytes take(std::size_t size) {
        for (auto it = spare_.begin(); it != spare_.end(); ++it)
            if (it->size() == size) {
                Bytes bytes = std::move(*it);
                spare_.erase(it);
                return bytes;
            }
        return Bytes(size);
    }
    // Keeps the snapshots of `tc`'s inputs for the next launch, in place of those kept before.
    void keep(TestCase& tc) {
        spare_.clear();
        for (CaseBuffer& b : tc.buffers) spare_.push_back(std::move(b.before));
    }
    void release() { spare_ = {}; }

private:
    std::vector<Bytes> spare_;
};

Bytes snapshot(const Allocation& a, const char* name, SnapshotMemory& memory) {
    Bytes bytes = memory.take(a.size);
    check(cudaMemcpy(bytes.data(), reinterpret_cast<const void*>(a.base), a.size, cudaMemcpyDefault), name,
          "copying an argument's allocation to the host");
    return bytes;
}

std::size_t record_limit() {
    static const std::size_t limit = [] {
        const char* text = std::getenv("GI_RECORD_LIMIT");
        if (!text || !*text) return std::size_t{16};
        char* end = nullptr;
        const long long value = std::strtoll(text, &end, 10);
        if (*end != '\0' || value < 0)
            throw RecordError(std::string("GI_RECORD_LIMIT must be a non-negative integer, not '") + text + "'");
        return static_cast<std::size_t>(value);
    }();
    return limit;
}

// GI_RECORD_GLOBALS: the module variables to capture ("const:c_Kernel,global:counter"), as
// `gi-tool record` lists them from the kernel file.
const std::vector<ModuleVariable>& requested_variables() {
    static const std::vector<ModuleVariable> variables = [] {
        const char* text = std::getenv("GI_RECORD_GLOBALS");
        try {
            return text ? parse_module_variables_text(text, "GI_RECORD_GLOBALS") : std::vector<ModuleVariable>{};
        } catch (const Error& e) {
            throw RecordError(e.what());
        }
    }();
    return variables;
}

// The case being built: its buffers and where each lives in this process's device memory.
class CaseBuilder {
public:
    explicit CaseBuilder(TestCase& tc) : tc_(tc) {}

    // The buffer holding `pointer` (an argument, an array element, a struct field): one already
    // found, or a new one for its allocation. Throws RecordError (naming `what`) when it is not
    // device memory.
    int buffer_for(std::uintptr_t pointer, const std::string& what, ElementType element) {
        if (const int b = known(pointer); b >= 0) return b;
        cudaPointerAttributes attributes{};
        const Memory kind = classify(reinterpret_cast<const void*>(pointer), attributes);
        if (kind == Memory::PinnedHost)
            throw RecordError(what + " points to pinned host memory (cudaMallocHost/cudaHostRegister), which the "
                              "recorder cannot replay; use device memory for the recorder run");
        if (kind == Memory::NotDevice)
            throw RecordError(what + " holds " + hex(pointer) + ", which is not device memory (a host pointer, or an "
                              "unset element: zero unused elements with cudaMemset)");
        const auto a = allocation_range(pointer);
        if (!a)
            throw RecordError(what + " points into memory the driver cannot size (" + hex(pointer) +
                              "); use plain cudaMalloc memory for the recorder run");
        return add(*a, element, "", false);
    }

    // A new buffer for an allocation a pointer argument points into: read-only until a pointer to
    // non-const points into it.
    int add_argument_allocation(const Allocation& a, ElementType element) { return add(a, element, "", true); }

    // Like buffer_for for a word that may or may not be a device pointer (a struct field): -1
    // when it is not one. Pinned host memory in a struct is refused: the kernel would read it.
    int maybe_buffer_for(std::uintptr_t value, const std::string& what) {
        // Below the first page or beyond the 57-bit user address space: a number, not a pointer.
        if (value < 4096 || value >= (std::uintptr_t{1} << 57)) return -1;
        if (const int b = known(value); b >= 0) return b;
        const std::uintptr_t page = value >> 16;
        if (not_device_pages_.count(page)) return -1;
        cudaPointerAttributes attributes{};
        const Memory kind = classify(reinterpret_cast<const void*>(value), attributes);
        if (kind == Memory::PinnedHost)
            throw RecordError(what + " holds a pointer to pinned host memory (" + hex(value) + "), which the recorder "
                              "cannot replay; use device memory for the recorder run");
        const auto a = kind == Memory::Device ? allocation_range(value) : std::nullopt;
        if (!a) {
            not_device_pages_.insert(page);
            return -1;
        }
        return add(*a, ElementType::Bytes, "", false);
    }

    // Kernels cannot write __constant__ memory; a __device__ variable may be an output.
    int add_variable(const ModuleVariable& v, CUdeviceptr address, std::size_t size) {
        return add({static_cast<std::uintptr_t>(address), size}, ElementType::Bytes, v.name, v.constant);
    }

    // The buffer holding `pointer`, -1 when none does yet.
    int known(std::uintptr_t pointer) const {
        for (std::size_t b = 0; b < places_.size(); ++b)
            if (places_[b].contains(pointer)) return static_cast<int>(b);
        return -1;
    }

    EmbeddedPointer embedded(std::uint64_t at, int buffer, std::uintptr_t value) const {
        return {at, buffer, value - places_[buffer].base};
    }
    std::uint64_t offset_in(int buffer, std::uintptr_t pointer) const { return pointer - places_[buffer].base; }
    const Allocation& place(int buffer) const { return places_[buffer]; }
    std::size_t count() const { return places_.size(); }

private:
    // Buffers reached through a struct or an array of pointers may be written through them, so
    // they are outputs (compared, restored) unless shown otherwise.
    int add(const Allocation& a, ElementType element, const std::string& variable, bool read_only) {
        places_.push_back(a);
        CaseBuffer buffer;
        buffer.size = a.size;
        buffer.element = element;
        buffer.variable = variable;
        buffer.read_only = read_only;
        tc_.buffers.push_back(std::move(buffer));
        return static_cast<int>(places_.size() - 1);
    }

    TestCase& tc_;
    std::vector<Allocation> places_;                 // per buffer
    std::set<std::uintptr_t> not_device_pages_;      // 64 KiB pages a scan found no device memory in
};

// The driver's handle of the kernel the program launched, nullptr when the runtime cannot tell.
CUfunction kernel_function(const void* kernel) {
    cudaFunction_t function = nullptr;
    if (cudaGetFuncBySymbol(&function, kernel) != cudaSuccess) {
        cudaGetLastError();
        return nullptr;
    }
    return reinterpret_cast<CUfunction>(function);
}

// The launched kernel's compiled (mangled) name: which instantiation of a template ran, so replay
// runs the same one. "" when the driver cannot say (an old driver: replay then goes by the name).
std::string kernel_symbol(CUfunction function) {
    static const FuncGetNameFn get_name = driver_function<FuncGetNameFn>("cuFuncGetName", 12030);
    const char* name = nullptr;
    if (!function || !get_name || get_name(&name, function) != CUDA_SUCCESS || !name) return "";
    return name;
}

// The module variables GI_RECORD_GLOBALS names that the kernel's module defines, captured as buffers.
void capture_variables(CaseBuilder& builder, CUfunction function, const char* name) {
    const std::vector<ModuleVariable>& wanted = requested_variables();
    if (wanted.empty()) return;
    static const FuncGetModuleFn get_module = driver_function<FuncGetModuleFn>("cuFuncGetModule");
    static const ModuleGetGlobalFn get_global = driver_function<ModuleGetGlobalFn>("cuModuleGetGlobal");
    CUmodule module = nullptr;
    if (!get_module || !get_global || !function || get_module(&module, function) != CUDA_SUCCESS) {
        cudaGetLastError();
        throw RecordError(std::string("gi::launch recording '") + name + "': cannot find the kernel's module to capture its "
                          "__constant__/__device__ variables (the driver lacks cuFuncGetModule; update the NVIDIA driver)");
    }
    for (const ModuleVariable& v : wanted) {
        CUdeviceptr address = 0;
        size_t size = 0;
        // A variable another file defines is not this kernel's state: its module does not have it.
        if (get_global(&address, &size, module, v.name.c_str()) != CUDA_SUCCESS || size == 0) continue;
        builder.add_variable(v, address, size);
    }
}

// Device pointers among the 8-byte words of `bytes` (a struct argument or a buffer). With
// `every_word`, each non-null word must be one (an array of pointers).
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

// GI_RECORD_KNOWN_DIR: a folder of cases recorded earlier by another run (`gi-tool record` sets it
// to its --out, since its program records into a private folder): they count toward the limit
// and a launch identical to one of them is not recorded again.
std::vector<std::filesystem::path> earlier_case_folders(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> folders{dir};
    if (const char* known = std::getenv("GI_RECORD_KNOWN_DIR"); known && *known) {
        std::error_code ec;
        if (!std::filesystem::equivalent(known, dir, ec)) folders.emplace_back(known);
    }
    return folders;
}

// What the recorder did with one kernel's launches in this process.
struct KernelRecording {
    std::size_t earlier = 0;    // its cases already recorded (GI_RECORD_DIR, GI_RECORD_KNOWN_DIR) when first launched
    std::size_t recorded = 0;   // by this process
    std::size_t skipped = 0;    // launches identical to a recorded one, not recorded again
    std::set<CaseFingerprint> seen;  // of every case counted in `earlier` and `recorded`
    bool limit_reached() const { return earlier + recorded >= record_limit(); }
};

// "1 launch", "3 distinct launches".
std::string launches(std::size_t n, const char* what = "launch") {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "es");
}

// The one line a kernel's recording ends with when identical launches were skipped ("" when none).
std::string skipped_summary(const std::string& name, const KernelRecording& k) {
    if (k.skipped == 0) return "";
    const std::string head = "gi::launch recording '" + name + "': ";
    if (k.recorded == 0)
        return head + "nothing new recorded: all " + launches(k.skipped) + " had the same inputs as one of the " +
               std::to_string(k.earlier) + " case(s) recorded earlier; record the program on other inputs to add cases";
    if (k.recorded == 1 && k.earlier == 0)
        return head + "all " + launches(k.skipped + 1) + " had the same inputs (geometry, arguments and buffer "
               "contents), so 1 case was recorded and variants are judged on it alone; record the program on more "
               "inputs (other sizes, other data) for a stronger check";
    return head + launches(k.recorded, "distinct launch") + " recorded, " + std::to_string(k.skipped) +
           " skipped as identical to an earlier one" +
           (k.limit_reached() ? " (GI_RECORD_LIMIT " + std::to_string(record_limit()) + " reached)" : "");
}

// Every kernel's recording, summed up on standard error when the program exits.
class Recordings {
public:
    ~Recordings() {
        for (const auto& [name, k] : kernels_)
            if (const std::string line = skipped_summary(name, k); !line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
    }

    // The kernel's recording, started (the cases recorded earlier counted and, while under the
    // limit, fingerprinted) at its first launch.
    KernelRecording& of(const char* name, const std::filesystem::path& dir) {
        if (const auto it = kernels_.find(name); it != kernels_.end()) return it->second;
        KernelRecording k;
        std::vector<std::filesystem::path> cases;
        try {
            for (const std::filesystem::path& folder : earlier_case_folders(dir))
                if (std::filesystem::is_directory(folder))
                    for (std::filesystem::path& p : list_test_cases(folder, name)) cases.push_back(std::move(p));
            k.earlier = cases.size();
            // One at a time: a case may hold hundreds of megabytes. Read as written, since this
            // only decides what is worth recording; gi-tool checks the checksums when it reads them.
            if (!k.limit_reached())
                for (const std::filesystem::path& p : cases) k.seen.insert(case_fingerprint(read_test_case(p, CaseLoad::DataTrusted)));
        } catch (const Error& e) {
            throw RecordError(std::string("gi::launch recording '") + name + "': reading the cases recorded earlier: " +
                              e.what());
        }
        return kernels_.emplace(name, std::move(k)).first->second;
    }

    SnapshotMemory memory;

private:
    std::map<std::string, KernelRecording> kernels_;
};

std::mutex recorder_mutex;
Recordings recordings;

}  // namespace

cudaError_t record_launch(Launcher launcher, const void* kernel, const char* name, dim3 grid, dim3 block,
                          std::size_t shared_bytes, cudaStream_t stream, void** args, const ArgInfo* infos,
                          std::size_t count) {
    std::lock_guard lock(recorder_mutex);
    const std::filesystem::path dir = std::getenv("GI_RECORD_DIR");
    KernelRecording& recording = recordings.of(name, dir);
    if (recording.limit_reached()) {
        recordings.memory.release();
        return launcher(kernel, grid, block, args, shared_bytes, stream);
    }

    // Earlier asynchronous work must be finished before the snapshot, and its errors are not ours.
    if (cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) return status;

    TestCase tc;
    tc.kernel = name;
    tc.grid = {grid.x, grid.y, grid.z};
    tc.block = {block.x, block.y, block.z};
    tc.shared_bytes = static_cast<std::uint32_t>(shared_bytes);
    int device = 0;
    cudaDeviceProp properties{};
    if (cudaGetDevice(&device) == cudaSuccess && cudaGetDeviceProperties(&properties, device) == cudaSuccess) {
        tc.device = properties.name;
        tc.compute_capability = properties.major * 10 + properties.minor;
    }

    CaseBuilder builder(tc);
    const CUfunction function = kernel_function(kernel);
    tc.symbol = kernel_symbol(function);
    // Variables first: a pointer argument into one of them (cudaGetSymbolAddress) then shares its buffer.
    capture_variables(builder, function, name);
    // Buffers whose contents are scanned for pointers once their bytes are read: (buffer, every word
    // must be a pointer, what to call it).
    std::vector<std::tuple<int, bool, std::string>> to_scan;
    for (std::size_t i = 0; i < count; ++i) {
        const ArgInfo& info = infos[i];
        CaseArg arg;
        arg.size = static_cast<std::uint32_t>(info.size);
        arg.element = static_cast<ElementType>(info.element);
        if (info.is_pointer) {
            const void* pointer = *static_cast<const void* const*>(info.value);
            arg.is_const = info.pointee_const;
            if (pointer == nullptr) {
                arg.kind = CaseArg::Kind::Null;
            } else {
                arg.kind = CaseArg::Kind::Pointer;
                const auto address = reinterpret_cast<std::uintptr_t>(pointer);
                int b = builder.known(address);
                if (b < 0) b = builder.add_argument_allocation(find_allocation(pointer, name, i), arg.element);
                CaseBuffer& buffer = tc.buffers[b];
                if (buffer.element == ElementType::Bytes && buffer.variable.empty()) buffer.element = arg.element;
                if (!info.pointee_const && buffer.variable.empty()) buffer.read_only = false;
                arg.buffer = b;
                arg.offset = builder.offset_in(b, address);
                if (info.holds != Holds::Data)
                    to_scan.emplace_back(b, info.holds == Holds::Pointers,
                                         where(name, i) + (info.holds == Holds::Pointers ? " (an array of pointers)"
                                                                                        : " (an array of structs)"));
            }
        } else {
            if (info.maybe_object) reject_texture_or_surface(*static_cast<const unsigned long long*>(info.value), name, i);
            arg.kind = CaseArg::Kind::Scalar;
            const auto* bytes = static_cast<const unsigned char*>(info.value);
            arg.value.assign(bytes, bytes + info.size);
            if (info.holds == Holds::MaybePointers)
                arg.pointers = find_pointers(builder, arg.value, false, where(name, i) + " (a struct)");
        }
        tc.args.push_back(std::move(arg));
    }
    // Buffers found so far are snapshot; scanning may add more (the targets of embedded pointers),
    // whose bytes are read in the same loop.
    for (std::size_t b = 0; b < builder.count(); ++b) {
        Bytes before = snapshot(builder.place(static_cast<int>(b)), name, recordings.memory);
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
        return launcher(kernel, grid, block, args, shared_bytes, stream);
    }

    if (cudaError_t status = launcher(kernel, grid, block, args, shared_bytes, stream); status != cudaSuccess)
        return status;
    // A launch that fails records nothing: a failing original is no oracle.
    if (cudaError_t status = cudaDeviceSynchronize(); status != cudaSuccess) return status;
    for (std::size_t b = 0; b < builder.count(); ++b) {
        CaseBuffer& buffer = tc.buffers[b];
        buffer.after = snapshot(builder.place(static_cast<int>(b)), name, recordings.memory);
        buffer.changed = buffer.after != buffer.before;
    }
    try {
        write_test_case(tc, dir);
    } catch (const Error& e) {
        throw RecordError(std::string("gi::launch recording '") + name + "': " + e.what());
    }
    ++recording.recorded;
    recording.seen.insert(fingerprint);
    return cudaSuccess;
}

}  // namespace gi::launch_detail
