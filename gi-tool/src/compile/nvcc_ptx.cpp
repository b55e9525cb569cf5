#include "compile/nvcc_ptx.hpp"

#include <chrono>
#include <filesystem>

#include "compile/nvcc_compiler.hpp"
#include "compile/ptx_compiler.hpp"
#include "process/process.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"

namespace fs = std::filesystem;

namespace gi {
namespace {

// compute_XX for sm_XX (ptx_compiler's), refusing what names no NVIDIA architecture at all.
std::string ptx_architecture(const std::string& arch) {
    const std::string virtual_arch = virtual_architecture(arch);
    if (virtual_arch.rfind("compute_", 0) != 0) throw Error("nvcc -ptx: '" + arch + "' is not an architecture like sm_90");
    return virtual_arch;
}

void write_scratch(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    write_file_atomically(path, text, Durability::Scratch);
}

// Whether `path` is a readable file holding exactly `text`.
bool holds(const fs::path& path, const std::string& text) {
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) return false;
    try {
        return read_text_file(path, "kernel file") == text;
    } catch (const Error&) {
        return false;
    }
}

}  // namespace

DeviceCompileResult compile_ptx_with_nvcc(const DeviceCompileRequest& request, const std::string& nvcc) {
    const auto start = std::chrono::steady_clock::now();
    TemporaryDirectory dir("gi-nvcc-ptx");
    for (const auto& [name, text] : request.headers) write_scratch(dir.path() / "headers" / name, text);
    std::string source = request.source;
    // A template kernel is compiled only where something instantiates it; the program's launch is
    // not in this file alone, and taking the kernel's address in host code does what it would.
    for (std::size_t k = 0; k < request.name_expressions.size(); ++k)
        source += "\nstatic void* const gi_instantiated_" + std::to_string(k) + " = (void*)&" + request.name_expressions[k] + ";\n";
    const std::string shown = fs::path(request.name).filename().empty() ? "variant.cu" : fs::path(request.name).filename().string();
    fs::path file = dir.path() / (fs::path(shown).extension() == ".cu" ? shown : shown + ".cu");
    // Where the request names a file that holds this source, nvcc compiles it there, so its quoted
    // #includes resolve as in the build; otherwise a copy here, its folder searched after ours.
    std::error_code ec;
    const fs::path named = request.name.empty() ? fs::path() : fs::absolute(request.name, ec);
    const bool in_place = !ec && !named.empty() && source == request.source && holds(named, source);
    if (in_place) file = named;
    else write_scratch(file, source);
    const fs::path ptx = dir.path() / "variant.ptx";

    std::vector<std::string> argv{nvcc.empty() ? find_nvcc() : nvcc, "-ptx", "-arch=" + ptx_architecture(request.arch)};
    argv.insert(argv.end(), request.options.begin(), request.options.end());
    if (!request.headers.empty()) argv.insert(argv.end(), {"-I", (dir.path() / "headers").string()});
    for (const std::string& include : request.include_dirs) argv.insert(argv.end(), {"-I", include});
    if (!in_place && !named.empty() && named.has_parent_path() && fs::is_directory(named.parent_path(), ec))
        argv.insert(argv.end(), {"-I", named.parent_path().string()});
    argv.insert(argv.end(), {file.string(), "-o", ptx.string()});
    ProcessOptions options;
    options.timeout = std::chrono::minutes(2);
    const ProcessResult run = run_process(argv, options);

    DeviceCompileResult r;
    r.compiler = "nvcc";
    r.log = run.out + run.err;
    if (run.timed_out) r.log += "\nnvcc -ptx did not finish within 2 minutes";
    r.ok = !run.timed_out && run.exit_code == 0 && fs::exists(ptx);
    if (r.ok) r.ptx = read_text_file(ptx, "PTX nvcc wrote");
    r.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace gi
