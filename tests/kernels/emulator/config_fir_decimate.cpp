// fir_decimate.cu compiled for the emulator under one configuration (see corpus_kernels.hpp), launched
// with the file's own geometry (fir_grid, fir_block).
#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "fir_decimate/fir_decimate.cu"
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
    gi::emu::fir_decimate_configs().push_back({std::string("fir_decimate ") + GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
