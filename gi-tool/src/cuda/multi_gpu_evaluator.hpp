#pragma once
// `--gpus all|N|LIST` (issue 45): the cuda evaluator on every GPU of one host. One CudaEvaluator
// per GPU, each with everything a single GPU's has (its worker and spares, its runner, its own
// timing of the original in every batch, its sanitizer sessions, GPU turns between its timing and
// its gate's checks), composed here:
//
// - evaluate() splits a batch over the GPUs (at least kMinVariantsPerGpu variants each, so a small
//   batch, such as a minimisation pair or a confirmation, stays on the first GPU), runs the parts at
//   once and merges the results in the batch's order. The batch's original is the first GPU's; a
//   variant run on another GPU carries that GPU's original (EvalResult::original), and its time and
//   that original are scaled by (first GPU's original / its GPU's original), so every speedup, every
//   acceptance and every comparison of times within the batch (tournaments, minimisation) is against
//   the original timed on the variant's own GPU in the same batch. A variant goes back to the GPU
//   that compiled it (its "home": where it was evaluated, or where prepare_ahead sent it) while that
//   keeps the parts even, so its compiled code is that GPU's cache hit.
// - the sanitizer gate's checks go to each variant's home GPU (its build is cached there, and its
//   verdict too, so asking again is free), all GPUs at once; the final checks (validate) run on the
//   first GPU, which takes part in every batch and so knows which training cases search never used.
// - the machine's cores are shared: each GPU's evaluator gets 1/N of the compile threads and of the
//   compute-sanitizer processes (the compiles of one batch are split the same way as its runs).
// - GPUs of different models are refused unless `mixed`: then speeds are still only ever compared
//   with the original on the same GPU (the scaling above), and the final checks run on the first.
//
// Until the first call that needs the GPUs, only the first GPU's evaluator exists; "all" and the
// checks of the list against the driver's count happen then (a machine without a GPU fails there
// exactly as the single-GPU evaluator does).
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuda/cuda_evaluator.hpp"
#include "cuda/gpu_selection.hpp"

namespace gi {

// A batch is spread only so far that each GPU gets at least this many variants: the original is
// timed once per GPU and batch, and a pair compared with each other is best timed on one GPU.
inline constexpr std::size_t kMinVariantsPerGpu = 4;

class MultiGpuEvaluator : public Evaluator, public VariantChecker {
public:
    // `options`: as for one GPU (its device is set per GPU). Throws as CudaEvaluator's constructor.
    MultiGpuEvaluator(const Grammar& grammar, CudaEvaluatorOptions options, GpuSelection gpus, bool mixed);
    ~MultiGpuEvaluator() override;

    EvaluatorTraits traits() const override;
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override;
    EvaluatorReport report() override;
    VariantChecker* checker() override { return this; }

    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) override;
    std::future<std::vector<EvalResult>> sanitize_many_async(const std::vector<Variant>& variants, int case_index) override;
    // On the first GPU's guard zones: a rejection is the variant's own, on any GPU.
    std::vector<std::optional<EvalResult>> prescreen(const std::vector<Variant>& variants, int case_index) override;
    ValidationReport validate(const Variant& variant) override;
    bool checks_alongside_evaluation() const override { return true; }
    int gate_case(int case_index) const override;
    std::vector<int> gate_only_cases() const override;
    void expect_checks() override;
    void prepare_ahead(const std::vector<Variant>& variants) override;
    void discard_evaluation(int case_index) override;

    // The GPUs' evaluators, the first first (starting them and checking their models if not yet
    // done). For cuda-bench's counters and anneal's workers.
    const std::vector<std::unique_ptr<CudaEvaluator>>& gpus();
    // The ordinals in use (resolving the selection first).
    std::vector<int> ordinals();
    // A new evaluator of GPU `ordinal` with this run's options and share of the machine: an
    // asynchronous search's further worker on that GPU.
    std::unique_ptr<CudaEvaluator> make_worker(int ordinal);

private:
    void ensure_gpus();
    // Which GPU each variant runs on: `used` GPUs, parts as even as can be, homes kept where they fit.
    std::vector<std::size_t> assign(const std::vector<Variant>& variants, std::size_t used);

    Grammar grammar_;
    CudaEvaluatorOptions options_;
    GpuSelection selection_;
    bool mixed_ = false;
    std::once_flag resolved_;
    std::vector<int> ordinals_;
    int compile_jobs_ = 0, sanitize_jobs_ = 0, sanitize_sessions_ = -1;  // each GPU's share
    std::vector<std::unique_ptr<CudaEvaluator>> gpus_;
    std::mutex homes_mutex_;
    std::map<std::string, std::size_t> homes_;  // variant key -> index into gpus_
};

}  // namespace gi
