// fir_decimate.cu with coarsen_fir_decimate.cu_19=4 (tests/data/thread_coarsen: what gi-tool apply
// writes, which tests/kernels/fir_decimate_emulated_test.cpp checks) compiled for the emulator under
// one configuration (see corpus_kernels.hpp), launched with its own fir_grid: a quarter of the blocks.
#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "../../data/thread_coarsen/fir_decimate_coarsen4.cu"
}  // namespace GI_EMU_CONFIG

namespace {

std::vector<float> run(const gi::fir::FilterProblem& p, int phase, gi::emu::Order order) {
    std::vector<float> out(static_cast<std::size_t>(p.outputs), NAN);  // NaN: an output never written shows
    gi::emu::launch(GI_EMU_CONFIG::fir_grid(p.outputs), GI_EMU_CONFIG::fir_block(), [&] {
        GI_EMU_CONFIG::fir_decimate(p.signal.data(), p.taps.data(), out.data(), p.outputs, p.decimation, p.tap_count,
                                    phase, p.phases);
    }, order);
    return out;
}

const bool registered = [] {
    gi::emu::fir_decimate_configs().push_back({std::string("fir_decimate_coarsen4 ") + GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
