#pragma once
// What the cuda evaluator tells a user at the end of a run (Evaluator::run_notes): where evaluate()'s
// time went, the sanitizer gate's note, batched timing, and which compiler built the variants and
// why. Pure: from the run's counters and facts.
#include <string>
#include <vector>

#include "cuda/case_set.hpp"
#include "cuda/cuda_evaluator.hpp"

namespace gi {

struct CudaRunFacts {
    const CudaEvaluatorStats& stats;
    const CudaEvaluatorOptions& options;
    const std::vector<CaseSlot>& slots;
    bool builder_made = false;      // the original was compiled (the builder decided the compiler)
    bool device_side = false;       // variants compiled with NVRTC from the file's device side
    std::string nvrtc_refusal;      // why NVRTC could not take the file or options ("" = it could)
};

std::vector<std::string> cuda_run_notes(const CudaRunFacts& facts);

}  // namespace gi
