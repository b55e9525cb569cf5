// conv1d.cu compiled for the emulator under one configuration (see corpus_kernels.hpp), launched
// with the file's own geometry (conv1d_grid, conv1d_block) or another block size.
#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "conv1d/conv1d.cu"
}  // namespace GI_EMU_CONFIG

namespace {

std::vector<float> run(const gi::conv1d::ConvProblem& p, int block, gi::emu::Order order) {
    std::vector<float> out(static_cast<std::size_t>(p.n), NAN);  // NaN: an output never written shows
    const gi::emu::dim3 threads = block > 0 ? gi::emu::dim3(block) : GI_EMU_CONFIG::conv1d_block();
    const gi::emu::dim3 grid = block > 0 ? gi::emu::dim3((p.n + block - 1) / block) : GI_EMU_CONFIG::conv1d_grid(p.n);
    gi::emu::launch(grid, threads, [&] { GI_EMU_CONFIG::conv1d(p.signal.data(), p.taps.data(), out.data(), p.n); }, order);
    return out;
}

const bool registered = [] {
    gi::emu::conv1d_configs().push_back({std::string("conv1d ") + GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
