#include "intercepted_launch.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <string_view>

#include "driver_device.hpp"
#include "record/intercept_settings.hpp"
#include "record/parameter_layout.hpp"
#include "record_core.hpp"

namespace gi::intercept {
namespace {

namespace fs = std::filesystem;
using launch_detail::ArgInfo;
using launch_detail::Holds;

static_assert(CU_LAUNCH_PARAM_END_AS_INT == kLaunchParamEnd &&
                  CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT == kLaunchParamBufferPointer &&
                  CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT == kLaunchParamBufferSize,
              "record/parameter_layout.hpp must name cuda.h's launch markers");

// A launched kernel, as first seen.
struct LaunchedKernel {
    std::string symbol;      // its compiled name; "" when the driver cannot say
    LaunchedHandle handle;   // the function, or the library kernel the launch named
    bool registered = false;
};

// The intercept's state in a process where it works; never destroyed, since a program may launch
// kernels while static objects are destroyed at exit.
struct State {
    InterceptSettings settings;
    fs::path dir;
    std::atomic<bool> stopped{false};       // after a launch could not be recorded
    std::atomic<bool> told_capture{false};
    std::mutex mutex;                        // guards the two below
    std::map<CUfunction, LaunchedKernel> kernels;
    std::set<std::string> listed;
};

State* state() {
    static State* const s = []() -> State* {
        auto settings = intercept_settings([](const char* name) { return static_cast<const char*>(std::getenv(name)); });
        if (!settings) return nullptr;
        auto* s = new State;
        s->settings = std::move(*settings);
        s->dir = std::getenv("GI_RECORD_DIR");
        return s;
    }();
    return s;
}

// A launch inside the intercept's own work (the driver calling its own entry points) is only made.
thread_local bool inside = false;

struct Inside {
    Inside() { inside = true; }
    ~Inside() { inside = false; }
};

// One write with O_APPEND: lines from several processes sharing the folder do not interleave.
void append_line(const fs::path& file, std::string line) {
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    line += '\n';
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return;
    [[maybe_unused]] const ssize_t written = ::write(fd, line.data(), line.size());
    ::close(fd);
}

// Stops recording: gi-tool record reads the file and fails with the message.
void fail(State& s, const std::string& message) {
    std::fprintf(stderr, "%s\n", message.c_str());
    append_line(s.dir / kInterceptErrorsFile, message);
    s.stopped = true;
}

LaunchedKernel identify(const DriverApi& api, const InterceptSettings& settings, CUfunction f) {
    LaunchedKernel k;
    const char* name = nullptr;
    if (api.func_get_name && api.func_get_name(&name, f) == CUDA_SUCCESS && name) {
        k.handle.function = f;
    } else if (api.kernel_get_name && api.kernel_get_name(&name, reinterpret_cast<CUkernel>(f)) == CUDA_SUCCESS && name) {
        k.handle.kernel = reinterpret_cast<CUkernel>(f);
    } else {
        name = nullptr;
    }
    k.symbol = name ? name : "";
    k.registered = !k.symbol.empty() && records_kernel(settings, k.symbol);
    return k;
}

// The launched kernel, identified once per handle; lists it in launched-kernels.txt when new.
LaunchedKernel launched_kernel(State& s, const DriverApi& api, CUfunction f) {
    std::lock_guard lock(s.mutex);
    auto it = s.kernels.find(f);
    if (it == s.kernels.end()) it = s.kernels.emplace(f, identify(api, s.settings, f)).first;
    const LaunchedKernel& k = it->second;
    if (!k.symbol.empty()) {
        const std::string listed = launched_kernel_name(k.symbol);
        if (s.listed.insert(listed).second) append_line(s.dir / kLaunchedKernelsFile, listed);
    }
    return k;
}

// Recording synchronises the device, which a stream being captured into a graph forbids (and an
// error there would end the capture): such launches are made, not recorded.
bool captured(const DriverApi& api, const LaunchCall& call) {
    if (!api.stream_is_capturing) return false;
    const CUstream stream = call.per_thread_stream && call.stream == nullptr ? CU_STREAM_PER_THREAD : call.stream;
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    return api.stream_is_capturing(stream, &status) != CUDA_SUCCESS || status != CU_STREAM_CAPTURE_STATUS_NONE;
}

// Offsets and sizes as the driver lays the parameters out; nullopt when it cannot say (a driver
// older than CUDA 12.4).
std::optional<std::vector<ParameterSlot>> driver_layout(const DriverApi& api, const LaunchedHandle& handle) {
    const bool by_function = handle.function && api.func_get_param_info;
    const bool by_kernel = !by_function && handle.kernel && api.kernel_get_param_info;
    if (!by_function && !by_kernel) return std::nullopt;
    std::vector<ParameterSlot> layout;
    for (std::size_t i = 0;; ++i) {
        std::size_t offset = 0, size = 0;
        const CUresult status = by_function ? api.func_get_param_info(handle.function, i, &offset, &size)
                                            : api.kernel_get_param_info(handle.kernel, i, &offset, &size);
        if (status != CUDA_SUCCESS) break;  // past the last parameter
        layout.push_back({offset, size});
    }
    return layout;
}

Holds holds_of(ParameterHolds holds) {
    switch (holds) {
        case ParameterHolds::Pointers: return Holds::Pointers;
        case ParameterHolds::MaybePointers: return Holds::MaybePointers;
        case ParameterHolds::Data: break;
    }
    return Holds::Data;
}

// The arguments as <gi/launch.hpp>'s describe() gives them for the same C++ types. Throws
// RecordError naming the kernel when they cannot be told.
std::vector<ArgInfo> describe_arguments(const DriverApi& api, const State& s, const LaunchedKernel& k,
                                        const LaunchCall& call, const std::string& head) {
    const auto types = launched_parameter_types(s.settings, k.symbol);
    if (!types)
        throw RecordError(head + ": the kernel's compiled name '" + k.symbol + "' carries no parameter types (an extern \"C\" "
                          "kernel) and gi-tool record passed none from its source (GI_RECORD_SIGNATURE)");
    auto layout = driver_layout(api, k.handle);
    if (!layout) layout = layout_from_types(*types);
    if (!layout)
        throw RecordError(head + ": the NVIDIA driver is older than CUDA 12.4 (no cuFuncGetParamInfo), so the size of a "
                          "struct passed by value cannot be told; update the driver, or launch the kernel through "
                          "gi::launch and record with --record-with launch");
    if (const std::string why = layout_problem(*types, *layout); !why.empty()) throw RecordError(head + ": " + why);
    std::vector<const void*> values;
    try {
        values = argument_values(*layout, call.params, call.extra);
    } catch (const std::exception& e) {
        throw RecordError(head + ": " + e.what());
    }
    std::vector<ArgInfo> args;
    for (std::size_t i = 0; i < types->size(); ++i) {
        const ParameterType& type = (*types)[i];
        ArgInfo info;
        info.value = values[i];
        info.size = (*layout)[i].size;
        info.is_pointer = type.is_pointer;
        info.pointee_const = type.pointee_const;
        info.maybe_object = type.maybe_object;
        info.element = static_cast<launch_detail::Element>(type.element);
        info.holds = holds_of(type.is_pointer ? type.pointee_holds : value_holds(type, info.size));
        args.push_back(info);
    }
    return args;
}

CUresult record(State& s, const DriverApi& api, const LaunchedKernel& k, const LaunchCall& call,
                const std::function<CUresult()>& run) {
    const std::string head = "gi-intercept recording '" + s.settings.kernel + "'";
    bool launched = false;
    CUresult launch_status = CUDA_SUCCESS;
    auto launch = [&] {
        launched = true;
        launch_status = run();
        return static_cast<int>(launch_status);
    };
    try {
        if (!call.refused.empty()) throw RecordError(head + ": " + call.refused);
        LaunchedHandle handle = k.handle;
        // A library kernel's function in the current context, for its module and parameters.
        if (!handle.function && handle.kernel && api.kernel_get_function &&
            api.kernel_get_function(&handle.function, handle.kernel) != CUDA_SUCCESS)
            handle.function = nullptr;
        const LaunchedKernel resolved{k.symbol, handle, true};
        const std::vector<ArgInfo> args = describe_arguments(api, s, resolved, call, head);
        DriverDevice device(api, handle, k.symbol);
        launch_detail::LaunchToRecord what;
        what.name = s.settings.kernel.c_str();
        what.grid = {call.grid[0], call.grid[1], call.grid[2]};
        what.block = {call.block[0], call.block[1], call.block[2]};
        what.shared_bytes = call.shared_bytes;
        what.args = args.data();
        what.count = args.size();
        return static_cast<CUresult>(launch_detail::record_launch_with(device, what, launch));
    } catch (const std::exception& e) {
        fail(s, e.what());
        return launched ? launch_status : run();
    }
}

// Read when the library is loaded, before the program could change its environment.
__attribute__((constructor)) void read_settings_at_load() {
    if (intercept_enabled()) state();
}

}  // namespace

bool intercept_enabled() {
    static const bool enabled = [] {
        const char* dir = std::getenv("GI_RECORD_DIR");
        const char* kernel = std::getenv("GI_RECORD_FUNCTION");
        const char* by = std::getenv("GI_RECORD_BY");
        return dir && *dir && kernel && *kernel && by && std::string_view(by) == "intercept";
    }();
    return enabled;
}

CUresult intercept_launch(const LaunchCall& call, const std::function<CUresult()>& run) {
    if (inside || !intercept_enabled()) return run();
    State* s = state();
    const DriverApi* api = driver();
    if (!s || !api) return run();
    Inside guard;
    const LaunchedKernel k = launched_kernel(*s, *api, call.function);
    if (!k.registered || s->stopped) return run();
    if (captured(*api, call)) {
        if (!s->told_capture.exchange(true))
            std::fprintf(stderr, "gi-intercept recording '%s': a launch into a stream being captured (a CUDA graph being "
                         "built) is made but not recorded: recording synchronises the device, which capture forbids; "
                         "launches of the graph are not seen either\n", s->settings.kernel.c_str());
        return run();
    }
    return record(*s, *api, k, call, run);
}

}  // namespace gi::intercept
