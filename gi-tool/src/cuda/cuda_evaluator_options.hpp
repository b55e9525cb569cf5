#pragma once
// What `--evaluator cuda` is told (cli/cuda_options.hpp parses it): the cases, the kernel, the
// compilers, the timing and the checks. Its own header so the evaluator's parts (case set, builder,
// runner, gate) take it without the evaluator.
#include <filesystem>
#include <string>
#include <vector>

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
    // A command prefix that starts each gi-worker elsewhere ("srun --gres=gpu:1 -N1 -n1 --quiet",
    // "ssh gpu-node"; worker/launcher.hpp), its words; empty = a local process, as before. A worker
    // lost with its launcher is replaced and its request re-run, at most `launcher_retries` times
    // in a row, then the run stops naming the launcher.
    std::vector<std::string> worker_launcher;
    int launcher_retries = 3;
    std::string nvcc;                       // "" = PATH, then /usr/local/cuda/bin
    std::string sanitizer;                  // compute-sanitizer; "" = PATH, then /usr/local/cuda/bin
    std::string arch;                       // "" = the GPU's own (sm_XX)
    int device = -1;                        // the GPU (CUDA ordinal) its workers open, through GI_WORKER_DEVICE;
                                            // -1 = theirs by default (device 0), as before --gpus
    // `--gpus all|N|LIST` (cuda/gpu_selection.hpp), for the command line's evaluator factory: one
    // evaluator per GPU (cuda/multi_gpu_evaluator.hpp). "" = one GPU, as before. gpus_mixed: GPUs of
    // different models may be used together.
    std::string gpus;
    bool gpus_mixed = false;
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
                                            // gets that one's result (cuda/binary_identity.hpp)
    bool nvcc_only = false;                 // every compile with nvcc (--nvcc-only), for A/B against NVRTC
    // With the gate's checks alongside: evaluate() keeps its GPU turn from one run to the next while
    // their builds are ready, and lets the checks in only while it waits for a compile. true: a turn
    // for each run (--gpu-turn-per-run), as before, for A/B.
    bool gpu_turn_per_run = false;
    // The original is timed before a batch's variants and again after them, the faster timing the
    // batch's yardstick (cuda/original_yardstick.hpp). true: once, before them (--original-once),
    // as before, for A/B.
    bool original_once = false;
    std::string nvrtc_server;               // gi-tool, whose --nvrtc-server processes run the NVRTC compiles
                                            // (cuda/nvrtc_processes.hpp); "" = in this process
    // A command prefix that starts those processes elsewhere (--compile-launcher, or
    // --compile-on-workers: the worker launcher's), its words; empty = on this machine, as before.
    // Lost processes are replaced as lost workers are (launcher_retries). `compile_launcher_option`
    // names where it came from in messages.
    std::vector<std::string> compile_launcher;
    std::string compile_launcher_option = "--compile-launcher";
    bool sanitize_prewarm = true;           // start the memcheck sessions when search begins (--no-sanitize-prewarm: at the first gate)
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
    bool gate_guard_pages = true;           // with guard zones: each buffer ends at an unmapped page, so a read
                                            // or write past its end faults and is judged without memcheck
                                            // (bench/results/2026-11-29-h200-s20-guard-pages-made-rows.md)
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
// The oracle gate's replays of the original per case after its first run.
inline int oracle_replays(bool nondeterministic) { return nondeterministic ? kNondeterministicReplays : 1; }

}  // namespace gi
