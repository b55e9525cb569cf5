#include "compile/nvrtc_compiler.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <sstream>

#include "compile/ptx_compiler.hpp"
#include "util/elapsed.hpp"
#include "util/error.hpp"

#ifdef GI_HAVE_NVRTC
#include <nvrtc.h>
#endif

namespace gi {

std::vector<std::string> toolkit_include_dirs() {
    static const std::vector<std::string> dirs = [] {
        namespace fs = std::filesystem;
        std::vector<fs::path> roots;
#ifdef GI_CUDA_INCLUDE_DIR
        roots.emplace_back(GI_CUDA_INCLUDE_DIR);
#endif
        if (const char* path = std::getenv("PATH")) {
            std::stringstream folders(path);
            for (std::string folder; std::getline(folders, folder, ':');)
                if (!folder.empty() && fs::exists(fs::path(folder) / "nvcc")) roots.push_back(fs::path(folder) / ".." / "include");
        }
        roots.emplace_back("/usr/local/cuda/include");
        std::error_code ec;
        for (const fs::path& root : roots) {
            if (!fs::exists(root / "cuda_runtime.h", ec)) continue;
            std::vector<std::string> found{fs::weakly_canonical(root, ec).string()};
            if (fs::exists(root / "cccl" / "cuda" / "std", ec)) found.push_back(fs::weakly_canonical(root / "cccl", ec).string());
            return found;
        }
        return std::vector<std::string>{};
    }();
    return dirs;
}

bool nvrtc_available() {
#ifdef GI_HAVE_NVRTC
    return true;
#else
    return false;
#endif
}

namespace {
// "error", "suppress" or "warn" for an nvcc diagnostic option (any spelling, with "=VALUE" or
// without), else "".
std::string diagnostic_kind(const std::string& option) {
    std::string name = option.substr(0, option.find('='));
    std::replace(name.begin(), name.end(), '_', '-');
    for (const char* kind : {"error", "suppress", "warn"})
        if (name == std::string("-diag-") + kind || name == std::string("--diag-") + kind) return kind;
    return "";
}
}  // namespace

std::optional<std::vector<std::string>> nvrtc_options_for(const std::vector<std::string>& options) {
    std::vector<std::string> out;
    auto starts = [](const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; };
    for (std::size_t i = 0; i < options.size(); ++i) {
        std::string o = options[i];
        if (starts(o, "-Xptxas ") || starts(o, "--ptxas-options ")) {
            out.push_back("--ptxas-options=" + o.substr(o.find(' ') + 1));
        } else if (o == "-Xptxas" || o == "--ptxas-options") {
            if (i + 1 >= options.size()) return std::nullopt;
            out.push_back("--ptxas-options=" + options[++i]);
        } else if (starts(o, "-Xptxas=") || starts(o, "--ptxas-options=")) {
            out.push_back("--ptxas-options=" + o.substr(o.find('=') + 1));
        } else if (o == "-use_fast_math" || o == "--use_fast_math") {
            out.push_back("--use_fast_math");
        } else if (starts(o, "-maxrregcount=") || starts(o, "--maxrregcount=")) {
            out.push_back("--maxrregcount=" + o.substr(o.find('=') + 1));
        } else if (starts(o, "-ftz=") || starts(o, "-prec-div=") || starts(o, "-prec-sqrt=") || starts(o, "-fmad=") ||
                   starts(o, "--ftz=") || starts(o, "--prec-div=") || starts(o, "--prec-sqrt=") || starts(o, "--fmad=")) {
            out.push_back(starts(o, "--") ? o : "-" + o);
        } else if (const std::string kind = diagnostic_kind(o); !kind.empty()) {
            // nvcc's -diag-suppress=177, --diag_suppress 177 (the older spelling), -diag-error=940, ...
            std::string value;
            if (o.find('=') != std::string::npos) value = o.substr(o.find('=') + 1);
            else if (i + 1 < options.size()) value = options[++i];
            else return std::nullopt;
            out.push_back("--diag-" + kind + "=" + value);
        } else if (o == "--expt-relaxed-constexpr" || o == "-expt-relaxed-constexpr" || o == "--extended-lambda" ||
                   o == "-extended-lambda" || o == "--expt-extended-lambda" || o == "-expt-extended-lambda") {
            // NVRTC has neither: they only let more code compile (host constexpr functions and
            // lambdas in device code), so code NVRTC compiles without them means the same; code
            // that needs them fails to compile and goes to nvcc.
        } else if (starts(o, "--std=")) {
            out.push_back(o.substr(1));
        } else if (o == "-Xcompiler" || o == "--compiler-options") {
            if (i + 1 >= options.size()) return std::nullopt;
            ++i;  // the host compiler's: no effect on device code
        } else if (starts(o, "-Xcompiler=") || starts(o, "--compiler-options=") || starts(o, "-Xcompiler ") || o == "-Wno-deprecated-gpu-targets" ||
                   o == "-O0" || o == "-O1" || o == "-O2" || o == "-O3" || o == "-g") {
            // nvcc gives these to the host compiler (-O, -g) or reads them itself: device code is the same.
        } else if (starts(o, "-Ofc=") || starts(o, "--Ofast-compile=") || starts(o, "-Ofast-compile=")) {
            out.push_back("--Ofast-compile=" + o.substr(o.find('=') + 1));  // CUDA 12.8 and later
        } else if (o == "-rdc=true" || o == "--relocatable-device-code=true" || o == "-rdc=false" ||
                   o == "--relocatable-device-code=false") {
            // Separable compilation: the cubin is relocatable and linked alone (compile/device_link.hpp).
            out.push_back(std::string("--relocatable-device-code=") + (o.find("true") != std::string::npos ? "true" : "false"));
        } else if (o == "--generate-line-info") {
            out.push_back("-lineinfo");
        } else if (o == "-G" || o == "-w") {
            out.push_back(o);
        } else if (starts(o, "-D") || starts(o, "-U") || starts(o, "-I") || o == "-lineinfo" ||
                   starts(o, "-std=") || o == "--extra-device-vectorization" || starts(o, "--restrict")) {
            out.push_back(o);
        } else {
            return std::nullopt;
        }
    }
    return out;
}

DeviceCompileResult compile_with_nvrtc(const DeviceCompileRequest& request) {
#ifndef GI_HAVE_NVRTC
    (void)request;
    throw Error("this gi-tool was built without NVRTC (no CUDA toolkit found at build time); rebuild it with the toolkit");
#else
    const auto start = std::chrono::steady_clock::now();
    auto check = [](nvrtcResult r, const char* what) {
        if (r != NVRTC_SUCCESS) throw Error(std::string("NVRTC ") + what + " failed: " + nvrtcGetErrorString(r));
    };
    const auto translated = nvrtc_options_for(request.options);
    if (!translated) throw Error("NVRTC has no equivalent of one of the options; compile this variant with nvcc");
    std::vector<std::string> options = *translated;
    options.push_back("--gpu-architecture=" + (request.ptx ? virtual_architecture(request.arch) : request.arch));
    for (const auto& dir : request.include_dirs) options.push_back("--include-path=" + dir);
    for (const auto& dir : toolkit_include_dirs()) options.push_back("--include-path=" + dir);
    std::vector<const char*> argv;
    for (const auto& o : options) argv.push_back(o.c_str());

    nvrtcProgram program = nullptr;
    std::vector<const char*> header_texts, header_names;
    for (const auto& [name, text] : request.headers) {
        header_names.push_back(name.c_str());
        header_texts.push_back(text.c_str());
    }
    check(nvrtcCreateProgram(&program, request.source.c_str(), request.name.c_str(), static_cast<int>(header_texts.size()),
                             header_texts.data(), header_names.data()),
          "program creation");
    struct Guard {
        nvrtcProgram& p;
        ~Guard() { nvrtcDestroyProgram(&p); }
    } guard{program};
    for (const std::string& expression : request.name_expressions)
        check(nvrtcAddNameExpression(program, expression.c_str()), "adding the name expression");

    DeviceCompileResult result;
    result.compiler = "nvrtc";
    const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
    std::size_t log_size = 0;
    if (nvrtcGetProgramLogSize(program, &log_size) == NVRTC_SUCCESS && log_size > 1) {
        result.log.resize(log_size);
        nvrtcGetProgramLog(program, result.log.data());
        result.log.resize(log_size - 1);
    }
    if (compiled == NVRTC_ERROR_INVALID_OPTION)
        throw Error("NVRTC refused the options (" + result.log + "); compile this variant with nvcc");
    if (compiled == NVRTC_SUCCESS && request.ptx) {
        std::size_t size = 0;
        check(nvrtcGetPTXSize(program, &size), "reading the PTX size");
        result.ptx.resize(size);
        check(nvrtcGetPTX(program, result.ptx.data()), "reading the PTX");
        while (!result.ptx.empty() && result.ptx.back() == '\0') result.ptx.pop_back();
        result.ok = true;
    } else if (compiled == NVRTC_SUCCESS) {
        std::size_t size = 0;
        check(nvrtcGetCUBINSize(program, &size), "reading the cubin size");
        if (size == 0) throw Error("NVRTC produced no cubin for " + request.arch + " (is it a real architecture like sm_90?)");
        result.cubin.resize(size);
        check(nvrtcGetCUBIN(program, result.cubin.data()), "reading the cubin");
        result.ok = true;
    }
    result.ms = ms_since(start);
    return result;
#endif
}

}  // namespace gi
