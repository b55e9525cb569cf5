#pragma once
// `--evaluator cuda`: replays recorded launches of the kernel on a GPU (issue 3).
//
// Variants are compiled in parallel (NVRTC in process; nvcc for options NVRTC lacks, or for the
// whole run when the original needs nvcc), cached by sha256(source, options, arch, compiler), and
// run by a gi-worker process that owns the CUDA context. Per case the worker keeps the inputs on
// the GPU, runs the original once to get the reference outputs (and to learn which output elements
// it writes, compare/write_set.hpp, so those are poisoned for variants), and checks and times every
// variant.
// The first worker on a case writes the reference outputs to a checksummed file (/dev/shm when
// there is one) that spare and replacement workers load instead of running the original again.
// Each variant is also compiled with its loops and barriers guarded (by default at -Ofc=mid, apart
// from the plain build; optimised as the plain build with --guard-fast-compile 0, then in its module
// where the file allows it, variant/paired_build.hpp, or apart with --separate-guard-build); that
// build runs the check, so a loop that runs away or a barrier that deadlocks ends by itself at
// original time x factor + guard margin and costs no restart; the plain build is timed and its
// outputs compared too. A variant that hangs anyway (a goto loop, a barrier in a #define) is killed
// at original time x factor + margin after its launch; one that crashes or leaves a sticky CUDA
// error costs a worker restart. Every failure is classified with its cause. A variant whose build
// is the same program as an earlier one's in its batch gets that one's result without a run
// (cuda/binary_identity.hpp).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "evaluate/variant_checker.hpp"
#include "cuda/cuda_evaluator_options.hpp"
#include "evaluate/evaluator.hpp"
#include "cuda/part_stats.hpp"
#include "cuda/sanitizer_gate.hpp"
#include "cuda/spare_workers.hpp"
#include "grammar/grammar.hpp"

namespace gi {

// Counters for reports and the throughput benchmark: evaluate()'s own, and each part's.
struct CudaEvaluatorStats {
    long variants = 0;            // results returned by evaluate()
    long duplicates = 0;          // variants equal to an earlier one in the same batch
    long binary_duplicates = 0;   // variants whose build equals an earlier one's in the same batch
                                  // (cuda/binary_identity.hpp): that one's result, no run
    double compile_wait_ms = 0;   // time evaluate() waited for compiles (not hidden behind GPU work)
    double checks_wait_ms = 0;    // time its runs waited for the GPU while gate checks ran alongside
    double checks_delay_ms = 0;   // how much later its batches ended for those waits (gpu_turns.hpp)
    // The original timed again after a batch's variants, the faster timing kept as the batch's
    // yardstick (cuda/original_yardstick.hpp): batches so timed, and of them those whose two
    // timings disagreed beyond noise, the first slower (the outlier that flatters variants) or the second.
    long originals_timed_twice = 0;
    long original_first_slower = 0;
    long original_second_slower = 0;
    // Closing timings that failed (the original did not run, or failed, after the batch's
    // variants): the batch kept its opening timing; the first such failure, for the run notes.
    long original_closing_failed = 0;
    std::string original_closing_failure;
    BuildStats build;             // the variant builder's (cuda/variant_builder.hpp)
    VariantRunStats runs;         // the variant runs' (cuda/case_runner.hpp)
    CaseWorkerStats workers;      // the worker in use (cuda/case_worker.hpp)
    SpareWorkerStats spares;      // the spare workers' (cuda/spare_workers.hpp)
    SanitizerGateStats gate;      // the sanitizer gate's (cuda/sanitizer_gate.hpp)

    // Variants whose loops were checked without the guard: its build failed, or the worker could not use it.
    long unguarded() const { return build.unguarded + runs.unguarded; }
};

// Its own checker: evaluate() and the checker's calls take turns on one lock, since anneal's master
// gates while a worker evaluates (evaluate/variant_checker.hpp); the checks sanitize_many_async
// leaves running in the background take turns on the GPU instead.
class CudaEvaluator : public Evaluator, public VariantChecker {
public:
    // Reads the case manifests, checks the declared geometry against each recorded one, and
    // resolves the programs it needs (worker, compilers). The GPU is first touched by evaluate().
    // Throws gi::UsageError / gi::Error naming what is missing or wrong.
    CudaEvaluator(const Grammar& grammar, CudaEvaluatorOptions options);
    ~CudaEvaluator() override;

    EvaluatorTraits traits() const override;
    // Launches per timed repetition on a case (batches for short kernels), once its original was timed.
    int launches_per_time(int case_index) const;
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override;
    // The device (starting the worker if needed), run_notes(), where evaluate() spent its time and
    // what the gate's checks running alongside it cost.
    EvaluatorReport report() override;
    VariantChecker* checker() override { return this; }

    // Runs up to `sanitize_jobs` (options) compute-sanitizer processes at once: the gate between
    // generations is otherwise a queue of ~2 s runs.
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) override;
    // Builds the jobs now (compiled-code cache hits) and runs compute-sanitizer on a thread of its
    // own; every request that runs kernels takes turns with evaluate()'s (cuda/gpu_turns.hpp).
    std::future<std::vector<EvalResult>> sanitize_many_async(const std::vector<Variant>& variants, int case_index) override;
    // The guard zones alone (--gate-guard-kib; none without them): a variant that writes outside
    // its buffers is rejected, and that verdict kept for the gate.
    std::vector<std::optional<EvalResult>> prescreen(const std::vector<Variant>& variants, int case_index) override;
    ValidationReport validate(const Variant& variant) override;
    bool checks_alongside_evaluation() const override { return true; }
    int gate_case(int case_index) const override;
    std::vector<int> gate_only_cases() const override;
    // Starts the long-lived memcheck sessions (--sanitize-sessions) ahead of the first gate.
    void expect_checks() override;
    void prepare_ahead(const std::vector<Variant>& variants) override;
    void discard_evaluation(int case_index) override;

    // The oracle gate, done before the first variant is judged (evaluate, sanitize and validate
    // call it; callers may call it earlier to fail fast). Replays the original kernel on every
    // case, training and held-out, and throws gi::Error naming the case, buffer and counts when:
    // a case holds no capture of a module variable the kernel's file defines; the replay does not
    // reproduce the recorded outputs (beyond the tolerance); a second replay differs from the
    // first and the kernel is not declared nondeterministic (or, declared, differs beyond the
    // tolerance); or no case's launch changed anything. Notes (a case whose launch changed
    // nothing, the spread measured) go to standard error.
    void check_oracle();

    const CudaEvaluatorStats& stats() const;
    // What a person should know about how the run was evaluated (the report's notes).
    std::vector<std::string> run_notes() const;
    std::string device_name();  // starts the worker if needed
    std::string arch();         // "sm_90"
    int device_count();         // the GPUs the worker's driver sees (starts the worker); 0: it did not say
    // Its share of the machine when it is one of several GPUs' evaluators: compile threads,
    // compute-sanitizer processes at once, and sessions kept (-1: as many as processes). Takes effect
    // only before its first evaluation or check (the builder and the sessions are made then).
    void share_machine(int compile_jobs, int sanitize_jobs, int sanitize_sessions);
    int device() const;         // the options' device: the GPU its workers open, -1 = their default
    bool loop_guard() const;    // whether variants are checked with their loops guarded

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// gi-worker next to the running program, else on PATH; "" when neither exists.
std::string find_worker_program();

}  // namespace gi
