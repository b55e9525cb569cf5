// What a PTX-edited variant costs to compile against a full NVRTC compile (issue 46), and how many
// random PTX edits assemble. For one kernel file: NVRTC source -> cubin (what every source variant
// costs), NVRTC source -> PTX (once per source variant; PTX edits reuse it), ptxas on the unedited
// PTX, then COUNT variants of EDITS random PTX edits each (gi's own draws: ptx/random_ptx_edit.hpp)
// assembled by ptxas in a child process, as compile/ptx_compiler.cpp does. CPU only: no GPU.
//
//   bash bench/ptx-compile-cost.sh     # builds this against a build's libraries, runs every kernel
//   ./ptx_compile_cost KERNEL.cu FUNCTION COUNT EDITS SEED PTXAS [NVRTC options...]
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_module.hpp"
#include "ptx/random_ptx_edit.hpp"
#include "util/rng.hpp"

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// NVRTC on `source` for `arch` ("sm_90": cubin, "compute_90": PTX); the PTX when asked for, "" on failure.
std::string nvrtc(const std::string& source, const std::string& arch, const std::vector<std::string>& extra, bool* ok) {
    nvrtcProgram program;
    nvrtcCreateProgram(&program, source.c_str(), "variant.cu", 0, nullptr, nullptr);
    std::vector<std::string> options{"--gpu-architecture=" + arch, "-std=c++17"};
    options.insert(options.end(), extra.begin(), extra.end());
    std::vector<const char*> argv;
    for (const std::string& o : options) argv.push_back(o.c_str());
    *ok = nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data()) == NVRTC_SUCCESS;
    std::string ptx;
    if (*ok && arch.rfind("compute_", 0) == 0) {
        std::size_t size = 0;
        nvrtcGetPTXSize(program, &size);
        ptx.resize(size);
        nvrtcGetPTX(program, ptx.data());
        while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
    }
    nvrtcDestroyProgram(&program);
    return ptx;
}

// ptxas in a child process (through the shell, as run_process would start it), milliseconds.
bool ptxas(const std::string& program, const std::string& ptx, const std::string& arch, double* ms) {
    const std::string in = "/tmp/gi-ptx-bench.ptx", out = "/tmp/gi-ptx-bench.cubin";
    std::ofstream(in, std::ios::binary) << ptx;
    const auto start = Clock::now();
    const int status = std::system((program + " -arch=" + arch + " -o " + out + " " + in + " >/dev/null 2>&1").c_str());
    *ms = ms_since(start);
    return status == 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 7) {
        std::fprintf(stderr, "usage: %s KERNEL.cu FUNCTION COUNT EDITS SEED PTXAS [NVRTC options...]\n", argv[0]);
        return 2;
    }
    std::ifstream file(argv[1], std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    const std::string source = text.str(), function = argv[2], ptxas_path = argv[6];
    const int count = std::atoi(argv[3]), edits_per_variant = std::atoi(argv[4]);
    std::vector<std::string> extra(argv + 7, argv + argc);
    const std::string arch = "sm_90";

    std::vector<double> full, to_ptx, assemble;
    std::string ptx;
    for (int i = 0; i < 3; ++i) {
        bool ok = false;
        auto start = Clock::now();
        nvrtc(source, arch, extra, &ok);
        full.push_back(ms_since(start));
        if (!ok) {
            std::fprintf(stderr, "%s: NVRTC does not compile it\n", argv[1]);
            return 1;
        }
        start = Clock::now();
        ptx = nvrtc(source, "compute_90", extra, &ok);
        to_ptx.push_back(ms_since(start));
        double ms = 0;
        if (!ptxas(ptxas_path, ptx, arch, &ms)) {
            std::fprintf(stderr, "%s: ptxas does not assemble NVRTC's PTX\n", argv[1]);
            return 1;
        }
        assemble.push_back(ms);
    }
    const gi::PtxModule module = gi::parse_ptx(ptx, "variant.ptx");
    const int entry = gi::find_entry(module, function);
    if (entry < 0) {
        std::fprintf(stderr, "%s: no kernel entry named %s in its PTX\n", argv[1], function.c_str());
        return 1;
    }
    gi::Rng rng(static_cast<std::uint64_t>(std::atoll(argv[5])));
    std::vector<double> edited_ms;
    int assembled = 0, drawn = 0;
    std::vector<int> per_kind_ok(8, 0), per_kind(8, 0);
    for (int v = 0; v < count; ++v) {
        std::vector<gi::Edit> edits;
        for (int e = 0; e < edits_per_variant; ++e)
            if (auto edit = gi::random_ptx_edit(module, entry, rng)) edits.push_back(*edit);
        if (edits.empty()) continue;
        ++drawn;
        double ms = 0;
        const bool ok = ptxas(ptxas_path, gi::apply_ptx_edits(module, edits).ptx, arch, &ms);
        edited_ms.push_back(ms);
        assembled += ok;
        if (edits_per_variant == 1) {
            ++per_kind[static_cast<int>(edits[0].op)];
            per_kind_ok[static_cast<int>(edits[0].op)] += ok;
        }
    }
    std::printf("%s %s: %zu kernel instructions; NVRTC cubin %.1f ms, NVRTC PTX %.1f ms, ptxas %.1f ms (unedited), "
                "ptxas %.1f ms (edited, median); %d of %d variants of %d edit%s assemble (%.0f%%)",
                argv[1], function.c_str(), gi::instructions_of(module, entry).size(), median(full), median(to_ptx),
                median(assemble), median(edited_ms), assembled, drawn, edits_per_variant, edits_per_variant == 1 ? "" : "s",
                drawn ? 100.0 * assembled / drawn : 0.0);
    if (edits_per_variant == 1) {
        const char* names[] = {"", "", "", "del", "copy", "move", "swap", "opnd"};
        std::printf(" [");
        for (int k = 3; k < 8; ++k) std::printf("%s%s %d/%d", k > 3 ? ", " : "", names[k], per_kind_ok[k], per_kind[k]);
        std::printf("]");
    }
    std::printf("\n");
    return 0;
}
