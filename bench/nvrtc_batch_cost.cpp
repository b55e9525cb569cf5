// What compiling several variants in one NVRTC unit would save (CPU only): NVRTC's time for one
// kernel file against N copies of it in one unit, each copy in its own namespace with its own value
// of one parameter (every macro the file #defines is #undef'd before each copy). The paired build
// (variant/paired_build.hpp) already puts a variant's two builds in one unit; this says whether
// batching variants, e.g. the points of a parameter sweep, would pay too.
//
//   g++ -O2 -std=c++17 bench/nvrtc_batch_cost.cpp -I/usr/local/cuda/include -L/usr/local/cuda/lib64 -lnvrtc -o nvrtc_batch_cost
//   ./nvrtc_batch_cost kernels/stereo/stereo.cu 8 BLOCK_W 32 64 128 256
//
// Arguments: KERNEL.cu, N (copies), NAME (the parameter varied), then its values (used in turn).
// Each compile is repeated 3 times; the mean is printed.
#include <nvrtc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Milliseconds for one compile for sm_90; exits with NVRTC's log when it fails.
double compile_ms(const std::string& source, std::size_t& cubin_bytes) {
    const auto start = std::chrono::steady_clock::now();
    nvrtcProgram program;
    nvrtcCreateProgram(&program, source.c_str(), "variant.cu", 0, nullptr, nullptr);
    const char* options[] = {"--gpu-architecture=sm_90", "-std=c++17"};
    if (nvrtcCompileProgram(program, 2, options) != NVRTC_SUCCESS) {
        std::size_t size = 0;
        nvrtcGetProgramLogSize(program, &size);
        std::string log(size, '\0');
        nvrtcGetProgramLog(program, log.data());
        std::fprintf(stderr, "compile failed:\n%s\n", log.substr(0, 2000).c_str());
        std::exit(1);
    }
    nvrtcGetCUBINSize(program, &cubin_bytes);
    nvrtcDestroyProgram(&program);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double mean_compile_ms(const std::string& source, std::size_t& cubin_bytes) {
    double total = 0;
    for (int repeat = 0; repeat < 3; ++repeat) total += compile_ms(source, cubin_bytes);
    return total / 3;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 5) {
        std::fprintf(stderr, "usage: %s KERNEL.cu N NAME VALUE...\n", argv[0]);
        return 2;
    }
    std::ifstream in(argv[1]);
    if (!in) {
        std::fprintf(stderr, "cannot read %s\n", argv[1]);
        return 2;
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    const std::string text = buffer.str();
    const int copies = std::atoi(argv[2]);
    const std::string name = argv[3];
    const std::vector<std::string> values(argv + 4, argv + argc);

    // A copy must see its own macro values, not the previous copy's.
    std::set<std::string> macros;
    const std::regex define("#\\s*define\\s+([A-Za-z_][A-Za-z0-9_]*)");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), define); it != std::sregex_iterator(); ++it)
        macros.insert((*it)[1]);
    std::string undefine_all;
    for (const std::string& macro : macros) undefine_all += "#undef " + macro + "\n";

    std::size_t bytes = 0;
    const double one = mean_compile_ms("#define " + name + " " + values[0] + "\n" + text, bytes);
    std::printf("%s: one copy %.0f ms (cubin %zu bytes)\n", argv[1], one, bytes);
    std::string unit;
    for (int i = 0; i < copies; ++i)
        unit += undefine_all + "#define " + name + " " + values[i % values.size()] + "\nnamespace gi_point" +
                std::to_string(i) + " {\n#line 1\n" + text + "\n}\n";
    const double many = mean_compile_ms(unit, bytes);
    std::printf("%s: %d copies %.0f ms, %.0f ms per copy (cubin %zu bytes); %.1fx less per copy\n", argv[1], copies,
                many, many / copies, bytes, one / (many / copies));
    return 0;
}
