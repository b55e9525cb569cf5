// wavefront.cu compiled for the emulator under one configuration (see corpus_kernels.hpp).
#include <cstddef>
#include <cstring>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "emulator/runtime_shim.hpp"
#include "wavefront/wavefront.cu"
}  // namespace GI_EMU_CONFIG

namespace {

// The whole alignment, one emulated launch per anti-diagonal, on the host's initial matrix.
std::vector<int> run(const gi::wavefront::SequencePair& s, const std::vector<int>& table, int gap,
                     gi::emu::Order order) {
    const int n = static_cast<int>(s.a.size()), m = static_cast<int>(s.b.size());
    if (GI_EMU_CONFIG::align_set_substitution(table.data()) != 0)
        throw gi::emu::EmulationError("align_set_substitution failed");
    std::vector<int> score = gi::wavefront::initial_scores(n, m, gap);
    // Poisoned interior: a cell read before it is written, or never written, shows.
    for (int i = 1; i <= n; ++i)
        for (int j = 1; j <= m; ++j) score[static_cast<std::size_t>(i) * (m + 1) + j] = -999999;
    for (int d = 0; d < GI_EMU_CONFIG::align_diagonals(n, m); ++d) {
        gi::emu::launch(GI_EMU_CONFIG::align_grid(n, m, d), GI_EMU_CONFIG::align_block(), [&] {
            GI_EMU_CONFIG::align_diagonal(score.data(), s.a.data(), s.b.data(), n, m, d, gap);
        }, order);
    }
    return score;
}

const bool registered = [] {
    gi::emu::wavefront_configs().push_back({GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
