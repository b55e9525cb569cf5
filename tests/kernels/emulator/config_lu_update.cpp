// lu_update.cu compiled for the emulator under one configuration (see corpus_kernels.hpp).
#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "lu_update/lu_update.cu"
}  // namespace GI_EMU_CONFIG

namespace {

namespace k = GI_EMU_CONFIG;

// The whole factorisation as the driver launches it.
std::vector<float> factor(std::vector<float> a, int n, gi::emu::Order order) {
    const int block = k::lu_block_size();
    int offset = 0;
    for (; offset < n - block; offset += block) {
        gi::emu::launch(gi::emu::dim3(1), k::lu_diagonal_block(), [&] { k::lu_diagonal(a.data(), n, offset); }, order);
        gi::emu::launch(k::lu_perimeter_grid(n, offset), k::lu_diagonal_block(),
                        [&] { k::lu_perimeter(a.data(), n, offset); }, order);
        gi::emu::launch(k::lu_trailing_grid(n, offset), k::lu_trailing_block(),
                        [&] { k::lu_trailing_update(a.data(), n, offset); }, order);
    }
    gi::emu::launch(gi::emu::dim3(1), k::lu_diagonal_block(), [&] { k::lu_diagonal(a.data(), n, offset); }, order);
    return a;
}

std::vector<float> trailing_update(std::vector<float> a, int n, int offset, gi::emu::Order order) {
    gi::emu::launch(k::lu_trailing_grid(n, offset), k::lu_trailing_block(),
                    [&] { k::lu_trailing_update(a.data(), n, offset); }, order);
    return a;
}

const bool registered = [] {
    gi::emu::lu_update_configs().push_back({GI_EMU_SETTINGS, k::lu_block_size(), factor, trailing_update});
    return true;
}();

}  // namespace
