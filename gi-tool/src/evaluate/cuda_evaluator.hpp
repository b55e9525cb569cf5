#pragma once
// `--evaluator cuda`: replays recorded launches of the kernel on a GPU (issue 3).
//
// Variants are compiled in parallel (NVRTC in process; nvcc for options NVRTC lacks, or for the
// whole run when the original needs nvcc), cached by sha256(source, options, arch, compiler), and
// run by a gi-worker process that owns the CUDA context. Per case the worker keeps the inputs on
// the GPU, runs the original once to get the reference outputs (and to learn which outputs it
// overwrites entirely, so those are poisoned for variants), and checks and times every variant.
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
// (evaluate/binary_identity.hpp).
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "evaluate/cuda_checker.hpp"
#include "evaluate/sanitizer_gate.hpp"
#include "evaluate/spare_workers.hpp"
#include "evaluate/evaluator.hpp"
#include "grammar/grammar.hpp"

namespace gi {

struct CudaEvaluatorOptions {
    std::filesystem::path cases;            // recorded training cases (folder of case folders)
    std::filesystem::path held_out;         // optional: cases kept out of training, for validation
    std::filesystem::path sanitize_cases;   // optional: small cases the search's sanitizer gate runs
                                            // variants on instead of the generation's (large) case
    std::string function;                   // kernel function; "" = the grammar's first __global__
    std::string recorded_name;              // name given to gi::launch; "" = the function's name
    std::string block;                      // launch geometry declarations ("" = as recorded)
    std::string grid;
    std::vector<std::string> tolerances;    // --tolerance texts (compare/tolerance.hpp)
    std::string worker;                     // gi-worker; "" = next to this program, then PATH
    std::string nvcc;                       // "" = PATH, then /usr/local/cuda/bin
    std::string sanitizer;                  // compute-sanitizer; "" = PATH, then /usr/local/cuda/bin
    std::string arch;                       // "" = the GPU's own (sm_XX)
    int jobs = 0;                           // compile threads; 0 = every core
    int warmups = 2;
    int repetitions = 10;
    // Kernels faster than this (the original's median on a case) are timed in batches of launches
    // back to back, each repetition their mean, so the timing events' resolution (about half a
    // microsecond) is a smaller share of what is measured; 0 = always single launches.
    double batch_timing_below_ms = 0.2;
    double timeout_factor = 10;             // a variant may take this many times the original
    int timeout_margin_ms = 30;             // plus this for the kernel. Faults reach the host ~1 s late
                                            // on the H100, so a crash is killed as a timeout anyway; the
                                            // margin covers the launch, the guard's clock read and the
                                            // replies (a finished check run takes ~3 ms). Raise it for
                                            // exact fault causes.
    int spare_workers = 4;                  // workers kept ready (case and the original's outputs loaded)
                                            // to replace a failed one: at least this many, up to 8
                                            // when failures outpace their start-up; 0 = none
    bool loop_guard = true;                 // check each variant with its loops guarded (variant/loop_guard.hpp),
                                            // so one whose loop runs away ends by itself, without a restart
    int guard_margin_ms = 2;                // the guard stops loops at the original's time x factor + this
    bool barrier_guard = true;              // with loop_guard: its __syncthreads() guarded too (variant/barrier_guard.hpp)
    bool shared_guard = true;               // with loop_guard: its __shared__ array accesses kept inside their
                                            // arrays (variant/shared_guard.hpp), so such a fault costs no worker
    bool paired_guard_build = true;         // the guarded build in the plain one's module (one compile, one
                                            // load; variant/paired_build.hpp), where the file allows it
    // The guarded build (it only runs the check; the plain build is timed and shipped) compiled with
    // `-Ofc=LEVEL` (nvcc/NVRTC --Ofast-compile: "min", "mid", "max"), apart from the plain build;
    // "0" = optimised as the plain one, and paired where paired_guard_build allows. Stereo's guarded
    // copies of a 13-times unrolled loop took NVRTC 5-7 s against 0.1 s at -Ofc=mid (issue 19).
    std::string guard_fast_compile = "mid";
    bool reuse_binary_duplicates = true;    // a variant built to the same program as an earlier one in its batch
                                            // gets that one's result (evaluate/binary_identity.hpp)
    bool nvcc_only = false;                 // every compile with nvcc (--nvcc-only), for A/B against NVRTC
    std::string nvrtc_server;               // gi-tool, whose --nvrtc-server processes run the NVRTC compiles
                                            // (evaluate/nvrtc_processes.hpp); "" = in this process
    bool sanitize_prewarm = true;           // start the memcheck sessions when search begins (--no-sanitize-prewarm: at the first gate)
    bool sanitize_shared_sessions = false;  // one session pool for all checkers (--sanitize-shared-sessions), for A/B
    int sanitize_jobs = 0;                  // compute-sanitizer runs at once in sanitize_many(); 0 = half the cores, at most 8
    int sanitize_batch = 8;                 // variants checked in one compute-sanitizer process at most (1: one each);
                                            // a batch that does not pass is checked again one variant per process
    int sanitize_sessions = -1;             // long-lived compute-sanitizer processes kept across the gate's
                                            // waves, over all checkers (-1: as many as sanitize_jobs; 0: none)
    int racecheck_sessions = 0;             // of them, racecheck's (0: a quarter, at least one); racecheck is the
                                            // slow checker, on variants that removed a barrier
    int sanitize_side_by_side = 8;          // with sessions: variants a racecheck or synccheck session runs at once,
                                            // each on a stream and a copy of the case of its own (1: one at a time)
    int gate_guard_kib = 256;               // with sessions: the gate first runs each variant in gi-worker with
                                            // guard zones of this many KiB around its buffers, and one that
                                            // writes into them is judged without compute-sanitizer; 0 = off
    std::filesystem::path compile_cache;    // "" = in memory only
    std::vector<std::string> include_dirs;  // the kernel's folder, for its #includes, and the user's -I
    std::vector<std::string> compile_options;  // every compile gets these first: -D macros, --compile-option words
    // The kernel's outputs may legitimately change from run to run (atomics on floats, races the
    // user accepts): the oracle gate then replays the original kNondeterministicReplays times and
    // requires the tolerance to cover the spread, instead of requiring identical reruns.
    bool nondeterministic = false;
    // Training cases kept out of search to validate the result: -1 = a quarter of them (at least
    // one, from two cases up) when no held-out folder is given, else none.
    int set_aside = -1;
};

inline constexpr int kNondeterministicReplays = 5;

// Launches per timed repetition for a kernel whose median is `median_ms`: enough for about a
// millisecond a repetition below `below_ms`, at most 64; 1 from `below_ms` up (or when it is 0).
int launches_per_time_for(double median_ms, double below_ms);

// Counters for reports and the throughput benchmark.
struct CudaEvaluatorStats {
    long variants = 0;            // results returned by evaluate()
    long compiled = 0;            // compiles actually run (cache misses)
    long cache_hits = 0;
    long duplicates = 0;          // variants equal to an earlier one in the same batch
    long binary_duplicates = 0;   // variants whose build equals an earlier one's in the same batch
                                  // (evaluate/binary_identity.hpp): that one's result, no run
    SanitizerGateStats gate;      // the sanitizer gate's (evaluate/sanitizer_gate.hpp)
    SpareWorkerStats spares;      // the spare workers' (evaluate/spare_workers.hpp)
    double compile_cpu_ms = 0;    // sum of compile times (over all threads)
    double compile_wait_ms = 0;   // time evaluate() waited for compiles (not hidden behind GPU work)
    double run_ms = 0;            // wall time of worker requests for variants (GPU work + transfers)
    double timeout_ms = 0;        // of which requests of variants that timed out (their allowance)
    double original_ms = 0;       // wall time of the original's runs at each batch's start (and on new cases)
    double reap_wait_ms = 0;      // of which waiting for killed workers to exit before timing it
    double original_load_ms = 0;  // of which readying a worker with the batch's case (a replacement, a case load)
    long case_loads = 0;          // cases loaded into the worker in use when it needed them (not ahead, by a spare)
    double restart_ms = 0;        // wall time replacing workers a variant killed, until the next can run
    long worker_restarts = 0;
    long timeouts = 0;            // variants killed at their allowance (the hard timeout)
    long loop_overruns = 0;       // variants the loop guard stopped (Timeout too, but no restart)
    long out_of_bounds = 0;       // variants the shared-memory guard stopped (Crash, no restart)
    long corrupting = 0;          // variants that changed the worker's copies of a case (Crash, restart)
    long unguarded = 0;           // variants with loops checked without the guard (guarded build failed)
    long guard_compiled = 0;      // of `compiled`, the separate loop-guarded builds
    long built_ahead = 0;         // variants whose builds started while the sanitizer gate ran (evolve's guess)
    long paired_builds = 0;       // variants built with their guarded copy in the same module
    long paired_fallbacks = 0;    // variants whose paired compile failed, then compiled separately (counted in `compiled`)
    long staged_runs = 0;         // variant requests whose reply gave per-stage wall times:
    double stage_load_ms = 0;     //   module load(s)
    double stage_check_ms = 0;    //   check run, restoring the case included
    double stage_compare_ms = 0;  //   output download and comparison
    long compared_on_gpu = 0;     //   output buffers found equal to the original's on the GPU (not downloaded)
    long compared_on_host = 0;    //   output buffers downloaded and compared on the host
    long integrity_on_gpu = 0;    //   the worker's own buffers found intact on the GPU after a run,
    long integrity_on_host = 0;   //   and those read back to the host to check them
    double stage_timed_ms = 0;    //   warm-ups and timed repetitions
    double stage_integrity_ms = 0; //  checking the worker's copies of the case(s) afterwards
    double stage_worker_ms = 0;   //   the worker's whole time on them
    double stage_load_plain_ms = 0, stage_load_find_ms = 0, stage_load_guard_ms = 0;  // the load stage's parts
    double stage_unload_ms = 0;   //   the worker's unloading of earlier modules between them (when idle)
    double stage_request_ms = 0;  //   the parent's wall time of those same requests (pipes, payload)
    long staged_beside_exiting = 0;     // of staged_runs, those sent while a killed worker was still exiting,
    double beside_exiting_load_ms = 0;  //   their module loads,
    double beside_exiting_unload_ms = 0; //  their worker's unloading before them,
    double beside_exiting_timed_ms = 0; //   and their timed repetitions
    long killed_reaped = 0;       // killed workers reaped so far (this process), and their mean
    double killed_exit_ms = 0;    //   time from the kill until they exited
    long cold_starts = 0;         // replacements with no spare at all
    long references_loaded = 0;   // workers that took the original's outputs from the hand-over file
    long references_rejected = 0; // hand-over files a worker found damaged or foreign (then recomputed)
    long references_recomputed = 0;  // replacements that had to run the original themselves
    std::string compiler;         // "nvrtc" or "nvcc"
    std::string guard_options;    // the guarded builds' own options ("-Ofc=mid"), "" when optimised as the plain builds
    long nvrtc_processes = 0;     // NVRTC's processes started (0: it compiled in gi-tool's own)
    long nvrtc_processes_lost = 0;  // of them, killed or crashed on a variant
};

class CudaEvaluator : public Evaluator, public VariantChecker {
public:
    // Reads the case manifests, checks the declared geometry against each recorded one, and
    // resolves the programs it needs (worker, compilers). The GPU is first touched by evaluate().
    // Throws gi::UsageError / gi::Error naming what is missing or wrong.
    CudaEvaluator(const Grammar& grammar, CudaEvaluatorOptions options);
    ~CudaEvaluator() override;

    std::string name() const override { return "cuda"; }
    int case_count() const override;
    // Launches per timed repetition on a case (batches for short kernels), once its original was timed.
    int launches_per_time(int case_index) const;
    bool measures_time() const override { return true; }
    std::vector<std::string> run_notes() const override;
    std::vector<TimeSpent> time_spent() const override;
    bool judges_the_program() const override { return true; }
    BatchResult evaluate(const std::vector<Variant>& variants, int case_index) override;
    void prepare_ahead(const std::vector<Variant>& variants) override;

    EvalResult sanitize(const Variant& variant, int case_index) override;
    // Runs up to `sanitize_jobs` (options) compute-sanitizer processes at once: the gate between
    // generations is otherwise a queue of ~2 s runs.
    std::vector<EvalResult> sanitize_many(const std::vector<Variant>& variants, int case_index) override;
    ValidationReport validate(const Variant& variant) override;
    int gate_case(int case_index) const override;
    // Starts the long-lived memcheck sessions (--sanitize-sessions) ahead of the first gate.
    void expect_checks() override;

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
    std::string device_name();  // starts the worker if needed
    std::string arch();         // "sm_90"
    bool loop_guard() const;    // whether variants are checked with their loops guarded

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// gi-worker next to the running program, else on PATH; "" when neither exists.
std::string find_worker_program();

}  // namespace gi
