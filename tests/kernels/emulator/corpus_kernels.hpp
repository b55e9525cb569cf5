#pragma once
// The gate corpus's kernels (kernels/thermal, aniso_diffusion, dp_sweep, wavefront, lu_update,
// elimination, matmul: third-party-style code, issue 44) compiled for the CUDA emulator, one entry
// per macro configuration, as emulated_kernels.hpp does for the example kernels. Each config_*.cpp
// runs the kernel file's own launch geometry and registers itself here.
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "emulator/cuda_emulator.hpp"
#include "aniso_diffusion/reference.hpp"
#include "conv1d/reference.hpp"
#include "dp_sweep/reference.hpp"
#include "elimination/reference.hpp"
#include "fir_decimate/reference.hpp"
#include "lu_update/reference.hpp"
#include "matmul/reference.hpp"
#include "row_norms/reference.hpp"
#include "thermal/reference.hpp"
#include "wavefront/reference.hpp"

namespace gi::emu {

struct ThermalConfig {
    std::string name;  // the configuration's macro settings, or "defaults"
    // One launch of thermal_step: the temperatures after one step from `in`.
    std::function<std::vector<float>(const std::vector<float>& power, const std::vector<float>& in, int rows, int cols,
                                     const thermal::Coefficients& k, Order order)>
        run;
};

std::vector<ThermalConfig>& thermal_configs();

struct AnisoDiffusionConfig {
    std::string name;
    // One launch of diffusion_coefficients: its six outputs for `image`.
    std::function<aniso_diffusion::Coefficients(const std::vector<float>& image, int rows, int cols, float q0_squared,
                                                Order order)>
        coefficients;
    // One launch of diffusion_update: `image` moves in place.
    std::function<void(std::vector<float>& image, const aniso_diffusion::Coefficients& k, int rows, int cols,
                       float lambda, Order order)>
        update;
};

std::vector<AnisoDiffusionConfig>& aniso_diffusion_configs();

struct DpSweepConfig {
    std::string name;
    // One launch of dp_row: row `row`'s best costs from the previous row's.
    std::function<std::vector<int>(const std::vector<int>& costs, const std::vector<int>& previous, int cols, int row,
                                   Order order)>
        run;
};

std::vector<DpSweepConfig>& dp_sweep_configs();

struct WavefrontConfig {
    std::string name;
    // The whole alignment: one launch of align_diagonal per anti-diagonal of tiles, in order.
    std::function<std::vector<int>(const wavefront::SequencePair& s, const std::vector<int>& table, int gap,
                                   Order order)>
        run;
};

std::vector<WavefrontConfig>& wavefront_configs();

struct LuUpdateConfig {
    std::string name;
    int block = 0;  // BLOCK_SIZE: the matrix side must be a multiple of it
    // The whole factorisation: the three kernels for each block step, as the driver launches them.
    std::function<std::vector<float>(std::vector<float> a, int n, Order order)> factor;
    // One launch of lu_trailing_update at `offset`.
    std::function<std::vector<float>(std::vector<float> a, int n, int offset, Order order)> trailing_update;
};

std::vector<LuUpdateConfig>& lu_update_configs();

struct EliminationConfig {
    std::string name;
    // Step t: one eliminate_multipliers launch, then one eliminate_rows launch, in place.
    std::function<void(std::vector<float>& a, std::vector<float>& b, std::vector<float>& m, int n, int t, Order order)>
        step;
};

std::vector<EliminationConfig>& elimination_configs();

struct MatmulConfig {
    std::string name;
    // One launch of matmul_tiled<tile> (16 or 32): C = A B.
    std::function<std::vector<float>(const std::vector<float>& A, const std::vector<float>& B, int M, int N, int K,
                                     int tile, Order order)>
        run;
};

std::vector<MatmulConfig>& matmul_configs();

struct RowNormsConfig {
    std::string name;  // "row_norms <settings>" for the kernel file, "row_norms_shfl <settings>" for
                       // its variant with the warp-shuffle transformation (tests/data/warp_reduce)
    // One launch of row_norms over the problem's matrix: its norms.
    std::function<std::vector<float>(const row_norms::NormProblem& problem, Order order)> run;
};

std::vector<RowNormsConfig>& row_norms_configs();

struct FirDecimateConfig {
    std::string name;  // "fir_decimate <settings>" for the kernel file, "fir_decimate_coarsen4 <settings>"
                       // for its variant with four blocks' work a block (tests/data/thread_coarsen)
    // One launch of fir_decimate for `phase`: that phase's outputs.
    std::function<std::vector<float>(const fir::FilterProblem& problem, int phase, Order order)> run;
};

std::vector<FirDecimateConfig>& fir_decimate_configs();

struct Conv1dConfig {
    std::string name;  // "conv1d <settings>" for the kernel file, "conv1d_stage <settings>" for its
                       // variant with the signal staged through shared memory (tests/data/shared_stage)
    // One launch of conv1d over the problem's signal: its outputs. `block`: threads a block, 0 for
    // the file's conv1d_block() (the grid covers the signal either way).
    std::function<std::vector<float>(const conv1d::ConvProblem& problem, int block, Order order)> run;
};

std::vector<Conv1dConfig>& conv1d_configs();

}  // namespace gi::emu
