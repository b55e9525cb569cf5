#include "compile/device_link.hpp"

#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <vector>

#include "compile/nvcc_compiler.hpp"
#include "process/process.hpp"

#ifdef GI_HAVE_NVJITLINK
#include <nvJitLink.h>
#endif

namespace gi {
namespace {

namespace fs = std::filesystem;

// The names a linker log says are undefined ("Undefined reference to '_Z5otherf' in ..."), joined.
std::string undefined_symbols(const std::string& log) {
    static const std::regex pattern(R"([Uu]ndefined reference to '([^']+)')");
    std::string names;
    for (std::sregex_iterator it(log.begin(), log.end(), pattern), end; it != end; ++it)
        if (names.find((*it)[1].str()) == std::string::npos) names += (names.empty() ? "" : ", ") + (*it)[1].str();
    return names;
}

// The device runtime library the toolkit ships, for the dynamic parallelism of a file that needs it.
std::string device_runtime_library() {
#ifdef GI_CUDADEVRT_LIBRARY
    if (fs::exists(GI_CUDADEVRT_LIBRARY)) return GI_CUDADEVRT_LIBRARY;
#endif
    for (const char* path : {"/usr/local/cuda/lib64/libcudadevrt.a", "/usr/local/cuda/lib/libcudadevrt.a"})
        if (fs::exists(path)) return path;
    return "";
}

#ifdef GI_HAVE_NVJITLINK
DeviceLinkResult link_with_nvjitlink(const std::string& image, const std::string& arch, bool with_runtime) {
    DeviceLinkResult r;
    r.linker = "nvJitLink";
    const std::string arch_option = "-arch=" + arch;
    const char* options[] = {arch_option.c_str()};
    nvJitLinkHandle handle = nullptr;
    if (nvJitLinkCreate(&handle, 1, options) != NVJITLINK_SUCCESS) {
        r.log = "nvJitLink could not start a link for " + arch;
        return r;
    }
    nvJitLinkResult status = nvJitLinkAddData(handle, NVJITLINK_INPUT_CUBIN, image.data(), image.size(), "variant.cu");
    const std::string runtime = with_runtime ? device_runtime_library() : "";
    if (status == NVJITLINK_SUCCESS && !runtime.empty())
        status = nvJitLinkAddFile(handle, NVJITLINK_INPUT_LIBRARY, runtime.c_str());
    if (status == NVJITLINK_SUCCESS) status = nvJitLinkComplete(handle);
    if (status == NVJITLINK_SUCCESS) {
        std::size_t size = 0;
        if (nvJitLinkGetLinkedCubinSize(handle, &size) == NVJITLINK_SUCCESS) {
            r.cubin.resize(size);
            r.ok = nvJitLinkGetLinkedCubin(handle, r.cubin.data()) == NVJITLINK_SUCCESS;
        }
    }
    if (!r.ok) {
        std::size_t size = 0;
        if (nvJitLinkGetErrorLogSize(handle, &size) == NVJITLINK_SUCCESS && size > 1) {
            r.log.resize(size);
            nvJitLinkGetErrorLog(handle, r.log.data());
            r.log.resize(std::strlen(r.log.c_str()));
        }
        if (r.log.empty()) r.log = "nvJitLink failed (status " + std::to_string(static_cast<int>(status)) + ")";
        r.cubin.clear();
    }
    nvJitLinkDestroy(&handle);
    return r;
}
#endif

DeviceLinkResult link_with_nvcc(const std::string& image, const std::string& arch, const std::string& nvcc,
                                bool with_runtime) {
    DeviceLinkResult r;
    r.linker = "nvcc -dlink";
    try {
        TemporaryDirectory dir("gi-device-link");
        const fs::path in = dir.path() / "variant.cubin", out = dir.path() / "linked.cubin";
        std::ofstream(in, std::ios::binary) << image;
        std::vector<std::string> argv = {nvcc.empty() ? find_nvcc() : nvcc, "-arch=" + arch, "-dlink", "-cubin",
                                         in.string(), "-o", out.string()};
        if (with_runtime) argv.push_back("-lcudadevrt");
        ProcessOptions options;
        options.timeout = std::chrono::minutes(2);
        const ProcessResult run = run_process(argv, options);
        r.log = run.err + run.out;
        if (run.succeeded()) {
            std::ifstream linked(out, std::ios::binary);
            r.cubin.assign(std::istreambuf_iterator<char>(linked), {});
            r.ok = !r.cubin.empty();
        }
        if (run.timed_out) r.log = "nvcc -dlink ran longer than 2 minutes and was killed";
    } catch (const std::exception& e) {
        r.log = e.what();
    }
    return r;
}

DeviceLinkResult link_once(const std::string& image, const std::string& arch, const std::string& nvcc, bool with_runtime) {
#ifdef GI_HAVE_NVJITLINK
    (void)nvcc;
    return link_with_nvjitlink(image, arch, with_runtime);
#else
    return link_with_nvcc(image, arch, nvcc, with_runtime);
#endif
}

}  // namespace

bool is_relocatable_cubin(const std::string& image) {
    if (image.size() < sizeof(Elf64_Ehdr) || std::memcmp(image.data(), ELFMAG, SELFMAG) != 0) return false;
    Elf64_Ehdr header;
    std::memcpy(&header, image.data(), sizeof header);
    return header.e_type == ET_REL;
}

DeviceLinkResult link_device_code(const std::string& relocatable, const std::string& arch, const std::string& nvcc) {
    DeviceLinkResult r = link_once(relocatable, arch, nvcc, false);
    if (r.ok) return r;
    // Only what the file leaves undefined can need the device runtime (cudaGetParameterBuffer and
    // the rest of dynamic parallelism): linked with it, and said, when that was all.
    std::string missing = undefined_symbols(r.log);
    if (!missing.empty() && !device_runtime_library().empty()) {
        DeviceLinkResult with_runtime = link_once(relocatable, arch, nvcc, true);
        if (with_runtime.ok) return with_runtime;
        missing = undefined_symbols(with_runtime.log);
        r = std::move(with_runtime);
    }
    if (!missing.empty())
        r.log = "its device code uses symbols that another file of the program defines (" + missing +
                "), so it cannot be linked alone; gi-optimize evaluates one kernel file (give the helper's "
                "definition to the kernel's file, or #include it there)";
    else
        r.log = "linking its relocatable device code (-rdc=true) with " + r.linker + " failed: " + r.log;
    return r;
}

DeviceLinkResult loadable_device_code(const std::string& image, const std::string& arch, const std::string& nvcc) {
    if (!is_relocatable_cubin(image)) {
        DeviceLinkResult r;
        r.ok = true;
        r.cubin = image;
        return r;
    }
    return link_device_code(image, arch, nvcc);
}

}  // namespace gi
