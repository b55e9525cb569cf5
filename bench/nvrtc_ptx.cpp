// NVRTC's PTX of one file, as the cuda evaluator's PTX edits see it (issue 46), written to stdout:
// bench/ptx-front-ends.sh compares it with nvcc's own front end's PTX of the same file.
//
//   ./nvrtc_ptx KERNEL.cu [NVRTC options...]      (e.g. -arch=compute_90 -I DIR -std=c++17)
#include <nvrtc.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: nvrtc_ptx KERNEL.cu [NVRTC options...]\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "nvrtc_ptx: cannot read %s\n", argv[1]);
        return 2;
    }
    std::stringstream text;
    text << in.rdbuf();
    const std::string source = text.str();
    nvrtcProgram program = nullptr;
    if (nvrtcCreateProgram(&program, source.c_str(), argv[1], 0, nullptr, nullptr) != NVRTC_SUCCESS) return 1;
    std::vector<const char*> options(argv + 2, argv + argc);
    const nvrtcResult compiled = nvrtcCompileProgram(program, static_cast<int>(options.size()), options.data());
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    if (compiled != NVRTC_SUCCESS) {
        std::fprintf(stderr, "%s", log.c_str());
        nvrtcDestroyProgram(&program);
        return 1;
    }
    nvrtcGetPTXSize(program, &size);
    std::string ptx(size, '\0');
    nvrtcGetPTX(program, ptx.data());
    std::fwrite(ptx.data(), 1, size > 0 ? size - 1 : 0, stdout);
    nvrtcDestroyProgram(&program);
    return 0;
}
