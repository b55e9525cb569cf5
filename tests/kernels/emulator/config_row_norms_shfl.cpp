// row_norms.cu with shfl_row_norms.cu_30=1 (tests/data/warp_reduce/row_norms_shfl.cu: what
// gi-tool apply writes, which tests/kernels/row_norms_emulated_test.cpp checks) compiled for the
// emulator under one configuration (see corpus_kernels.hpp), launched with the file's own geometry.
#include <cmath>

#include "emulator/corpus_kernels.hpp"
#include "emulator/cuda_emulator.hpp"

namespace GI_EMU_CONFIG {
using namespace gi::emu;
#include "../../data/warp_reduce/row_norms_shfl.cu"
}  // namespace GI_EMU_CONFIG

namespace {

std::vector<float> run(const gi::row_norms::NormProblem& p, gi::emu::Order order) {
    std::vector<float> norms(static_cast<std::size_t>(p.rows), NAN);  // NaN: a norm never written shows
    gi::emu::launch(GI_EMU_CONFIG::row_norms_grid(p.rows), GI_EMU_CONFIG::row_norms_block(),
                    [&] { GI_EMU_CONFIG::row_norms(p.matrix.data(), norms.data(), p.rows, p.cols); }, order);
    return norms;
}

const bool registered = [] {
    gi::emu::row_norms_configs().push_back({std::string("row_norms_shfl ") + GI_EMU_SETTINGS, run});
    return true;
}();

}  // namespace
