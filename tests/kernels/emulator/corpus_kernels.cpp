#include "emulator/corpus_kernels.hpp"

namespace gi::emu {

std::vector<ThermalConfig>& thermal_configs() {
    static std::vector<ThermalConfig> configs;
    return configs;
}

std::vector<AnisoDiffusionConfig>& aniso_diffusion_configs() {
    static std::vector<AnisoDiffusionConfig> configs;
    return configs;
}

std::vector<DpSweepConfig>& dp_sweep_configs() {
    static std::vector<DpSweepConfig> configs;
    return configs;
}

std::vector<WavefrontConfig>& wavefront_configs() {
    static std::vector<WavefrontConfig> configs;
    return configs;
}

std::vector<LuUpdateConfig>& lu_update_configs() {
    static std::vector<LuUpdateConfig> configs;
    return configs;
}

std::vector<EliminationConfig>& elimination_configs() {
    static std::vector<EliminationConfig> configs;
    return configs;
}

std::vector<MatmulConfig>& matmul_configs() {
    static std::vector<MatmulConfig> configs;
    return configs;
}

std::vector<RowNormsConfig>& row_norms_configs() {
    static std::vector<RowNormsConfig> configs;
    return configs;
}

std::vector<FirDecimateConfig>& fir_decimate_configs() {
    static std::vector<FirDecimateConfig> configs;
    return configs;
}

std::vector<Conv1dConfig>& conv1d_configs() {
    static std::vector<Conv1dConfig> configs;
    return configs;
}

}  // namespace gi::emu
