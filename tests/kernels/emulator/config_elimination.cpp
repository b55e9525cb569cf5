// elimination.cu compiled for the emulator under one configuration (see corpus_kernels.hpp).
#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "elimination/elimination.cu"
}  // namespace GI_EMU_CONFIG

namespace {

namespace k = GI_EMU_CONFIG;

void step(std::vector<float>& a, std::vector<float>& b, std::vector<float>& m, int n, int t, gi::emu::Order order) {
    gi::emu::launch(k::multipliers_grid(n, t), k::multipliers_block(),
                    [&] { k::eliminate_multipliers(a.data(), m.data(), n, t); }, order);
    gi::emu::launch(k::rows_grid(n, t), k::rows_block(), [&] { k::eliminate_rows(a.data(), b.data(), m.data(), n, t); },
                    order);
}

const bool registered = [] {
    gi::emu::elimination_configs().push_back({GI_EMU_SETTINGS, step});
    return true;
}();

}  // namespace
