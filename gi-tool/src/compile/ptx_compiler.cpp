#include "compile/ptx_compiler.hpp"

#include <fstream>
#include <iterator>

#include "compile/nvcc_compiler.hpp"
#include "process/process.hpp"
#include "util/error.hpp"

namespace gi {
namespace fs = std::filesystem;

std::string find_ptxas(const std::string& nvcc) {
    const fs::path beside = fs::path(nvcc.empty() ? find_nvcc() : nvcc).parent_path() / "ptxas";
    std::error_code ec;
    if (fs::is_regular_file(beside, ec)) return beside.string();
    throw Error("ptxas not found beside nvcc (" + beside.string() +
                "); PTX edits need the CUDA toolkit's assembler: install the whole toolkit, or name its nvcc with --nvcc");
}

std::string virtual_architecture(const std::string& arch) {
    if (arch.rfind("sm_", 0) != 0) return arch;
    return "compute_" + arch.substr(3);
}

std::vector<std::string> ptxas_options_for(const std::vector<std::string>& nvcc_options) {
    std::vector<std::string> out;
    auto starts = [](const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; };
    for (std::size_t i = 0; i < nvcc_options.size(); ++i) {
        const std::string& o = nvcc_options[i];
        if (starts(o, "-Xptxas ") || starts(o, "--ptxas-options ")) out.push_back(o.substr(o.find(' ') + 1));
        else if ((o == "-Xptxas" || o == "--ptxas-options") && i + 1 < nvcc_options.size()) out.push_back(nvcc_options[++i]);
        else if (starts(o, "-Xptxas=") || starts(o, "--ptxas-options=")) out.push_back(o.substr(o.find('=') + 1));
        else if (starts(o, "-maxrregcount=") || starts(o, "--maxrregcount=")) out.push_back("--maxrregcount=" + o.substr(o.find('=') + 1));
    }
    return out;
}

DeviceCompileResult compile_ptx(const std::string& ptx, const std::string& arch, const std::vector<std::string>& options,
                                const std::string& ptxas, std::chrono::milliseconds timeout) {
    TemporaryDirectory dir("gi-ptxas");
    const fs::path in = dir.path() / "variant.ptx", out = dir.path() / "variant.cubin";
    std::ofstream(in, std::ios::binary) << ptx;
    std::vector<std::string> argv{ptxas.empty() ? find_ptxas() : ptxas, "-arch=" + arch};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.insert(argv.end(), {"-o", out.string(), in.string()});
    ProcessOptions process;
    process.timeout = timeout;
    const ProcessResult run = run_process(argv, process);
    DeviceCompileResult r;
    r.compiler = "ptxas";
    r.ms = run.seconds * 1000;
    r.log = first_error_lines(run.err + run.out, 3, in.string(), "variant.ptx");
    if (run.timed_out) r.log = "ptxas ran longer than " + std::to_string(timeout.count()) + " ms and was killed";
    else if (run.signal != 0) r.log += "\n(ptxas killed by signal " + std::to_string(run.signal) + ")";
    if (run.succeeded()) {
        std::ifstream cubin(out, std::ios::binary);
        r.cubin.assign(std::istreambuf_iterator<char>(cubin), {});
        r.ok = !r.cubin.empty();
        r.log = run.err + run.out;
    }
    return r;
}

}  // namespace gi
