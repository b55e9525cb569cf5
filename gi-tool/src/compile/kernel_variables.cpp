#include "compile/kernel_variables.hpp"

#include <filesystem>
#include <fstream>

#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "compile/project_headers.hpp"
#include "util/error.hpp"
#include "process/process.hpp"

namespace gi {
namespace fs = std::filesystem;

std::vector<std::string> project_texts(const std::string& source, const fs::path& kernel_dir,
                                       const std::vector<std::string>& include_dirs) {
    std::vector<std::string> texts{source};
    for (const ProjectHeader& header : project_headers(source, kernel_dir, include_dirs, toolkit_include_dirs(), {}))
        texts.push_back(header.device_side);
    return texts;
}

std::vector<ModuleVariable> kernel_file_variables(const KernelFileCompile& request) {
    std::vector<std::string> include_dirs = request.include_dirs;
    const fs::path folder = fs::path(request.path).parent_path();
    include_dirs.insert(include_dirs.begin(), folder.empty() ? "." : folder.string());
    const std::vector<std::string> texts = project_texts(request.source, folder.empty() ? "." : folder, include_dirs);
    std::string nvrtc_log;
    if (nvrtc_available() && nvrtc_options_for(request.options)) {
        DeviceCompileRequest r;
        r.options = request.options;
        r.source = request.source;
        r.name = fs::path(request.path).filename().string();
        r.arch = request.arch;
        r.include_dirs = include_dirs;
        const DeviceCompileResult compiled = compile_with_nvrtc(r);
        if (compiled.ok) return project_variables(module_variables(compiled.cubin), texts);
        nvrtc_log = compiled.log;
    }
    // Host code and host headers (stdio.h, cuda_runtime.h) are nvcc's to take.
    NvccOptions options;
    options.nvcc = request.nvcc;
    options.arch = request.arch;
    options.include_dirs = include_dirs;
    const NvccCompiler nvcc(options);
    TemporaryDirectory scratch("gi-kernel-variables");
    const fs::path source = scratch.path() / fs::path(request.path).filename();
    std::ofstream(source, std::ios::binary) << request.source;
    const fs::path cubin = scratch.path() / "kernel.cubin";
    const CompileOutcome outcome = nvcc.compile(source, cubin, request.options, request.path);
    if (outcome.status != CompileOutcome::Status::Ok)
        throw Error(request.path + " does not compile for " + request.arch + ", so its __constant__/__device__ variables "
                    "cannot be listed:\n" + outcome.first_errors +
                    (nvrtc_log.empty() ? "" : "\n(NVRTC: " + first_error_lines(nvrtc_log, 2) + ")"));
    std::ifstream in(cubin, std::ios::binary);
    return project_variables(module_variables(std::string(std::istreambuf_iterator<char>(in), {})), texts);
}

}  // namespace gi
