// dp_sweep.cu compiled for the emulator under one configuration (see corpus_kernels.hpp).
#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "dp_sweep/dp_sweep.cu"
}  // namespace GI_EMU_CONFIG

namespace {

std::vector<int> run(const std::vector<int>& costs, const std::vector<int>& previous, int cols, int row,
                     gi::emu::Order order) {
    std::vector<int> current(cols, -12345);  // a column the kernel never writes shows
    gi::emu::launch(GI_EMU_CONFIG::dp_grid(cols), GI_EMU_CONFIG::dp_block(), [&] {
        GI_EMU_CONFIG::dp_row(costs.data(), previous.data(), current.data(), cols, row);
    }, order);
    return current;
}

const bool registered = [] {
    gi::emu::dp_sweep_configs().push_back({GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
