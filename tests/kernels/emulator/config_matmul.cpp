// matmul.cu compiled for the emulator (see corpus_kernels.hpp): both instantiations the program
// launches, through the file's own matmul_kernel_for.
#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "matmul/matmul.cu"
}  // namespace GI_EMU_CONFIG

namespace {

namespace k = GI_EMU_CONFIG;

std::vector<float> run(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K, int tile,
                       gi::emu::Order order) {
    const k::matmul_kernel_t kernel = k::matmul_kernel_for(tile);
    if (kernel == nullptr) throw gi::emu::EmulationError("matmul_kernel_for(" + std::to_string(tile) + ") is null");
    std::vector<float> C(static_cast<std::size_t>(M) * N, NAN);  // NaN: an entry never written shows
    gi::emu::launch(k::matmul_grid(tile, M, N), k::matmul_block(tile),
                    [&] { kernel(A.data(), B.data(), C.data(), M, N, K); }, order);
    return C;
}

const bool registered = [] {
    gi::emu::matmul_configs().push_back({GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
