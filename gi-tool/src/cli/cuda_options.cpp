#include "cli/cuda_options.hpp"

#include "cuda/gpu_selection.hpp"
#include "cuda/nvrtc_processes.hpp"
#include "util/error.hpp"
#include "worker/launcher.hpp"

namespace gi::cli {

void add_compiler_options(CommandLine& app, CompilerChoice& compiler, const std::string& group) {
    app.add_architecture("--arch", compiler.arch, "architecture to compile for")
        .shown_default("the GPU's with the cuda evaluator, sm_90 with compile-only")
        .group(group);
    app.add_text("--nvcc", compiler.nvcc, "PATH", "the nvcc to run (default: PATH, then /usr/local/cuda/bin)").group(group);
    app.add_integer("--jobs", compiler.jobs, 1, 1024, "compilers running at once", "every core with cuda, 2 with compile-only")
        .group(group);
}

void add_cuda_options(CommandLine& app, CudaCommandLine& cuda, const std::string& group) {
    CudaEvaluatorOptions& o = cuda.options;
    auto path = [&](const std::string& name, std::filesystem::path& field, const std::string& value_name, const std::string& help) {
        return app.add_path(name, field, value_name, help).group(group);
    };
    auto text = [&](const std::string& name, std::string& field, const std::string& value_name, const std::string& help) {
        return app.add_text(name, field, value_name, help).group(group);
    };
    auto integer = [&](const std::string& name, int& field, long long min, long long max, const std::string& help,
                       const std::string& shown = "") { return app.add_integer(name, field, min, max, help, shown).group(group); };
    auto flag = [&](const std::string& name, bool& field, const std::string& help) {
        return app.add_switch(name, field, help).group(group);
    };
    path("--cases", o.cases, "DIR", "recorded test cases (gi-tool record --out DIR); required");
    text("--gpus", o.gpus, "all|N|LIST",
         "the GPUs of this host to evaluate on: all, the first N, or ordinals separated by commas (0,2); each batch is "
         "split over them, each variant timed against the original timed on its own GPU, the sanitizer gate's checks "
         "spread too, and the final checks run on the first. GPUs of different models are refused unless --gpus-mixed")
        .shown_default("1 (GPU 0; CUDA_VISIBLE_DEVICES chooses another)")
        .check([](const std::string& text) -> std::string {
            try {
                parse_gpu_selection(text, "--gpus");
            } catch (const UsageError& e) {
                return e.what();
            }
            return "";
        });
    flag("--gpus-mixed", o.gpus_mixed,
         "with --gpus: allow GPUs of different models in one run (speeds are still only compared with the original "
         "timed on the same GPU; the final checks run on the first)");
    path("--held-out", o.held_out, "DIR", "cases kept out of training, used to validate the result");
    path("--sanitize-cases", o.sanitize_cases, "DIR",
         "small recorded cases (of the same kernel) on which the search's sanitizer gate runs each would-be parent, "
         "instead of the generation's case; the final checks still use the training and held-out cases, and the winner "
         "is validated on these too");
    integer("--set-aside", o.set_aside, 0, 1000000,
            "recorded cases (the last N of --cases) kept out of search to validate the result; 0 searches on all of them",
            "without --held-out a quarter, at least one, from two cases up");
    flag("--nondeterministic", o.nondeterministic,
         "the kernel's outputs may change from run to run (float atomics, accepted races): the original is replayed 5 "
         "times per case and the --tolerance must cover how far its outputs move (default: a rerun must give the same "
         "outputs, or the run stops)");
    text("--recorded-name", o.recorded_name, "NAME", "the name the program gave gi::launch (default: the function's)");
    text("--block", o.block, "EXPR",
         "block size as X[,Y[,Z]] over parameters and integer kernel arguments, e.g. BLOCK_W,4 (default: --block-size, "
         "else as recorded)");
    text("--grid", o.grid, "EXPR", "grid, e.g. 'ceil(width/BLOCK_W),ceil(height/ROWS)' (default: as recorded)");
    app.add_list("--tolerance", o.tolerances, "SPEC",
             "float comparison: exact (default), abs=X, rel=X, ulp=N or a mix; NAME:SPEC for one pointer parameter "
             "(repeatable)")
        .group(group);
    text("--worker", o.worker, "PATH", "the gi-worker program (default: next to gi-tool)")
        .hidden();
    text("--worker-launcher", cuda.worker_launcher, "\"CMD ...\"",
         "start every gi-worker through this command prefix, e.g. \"srun --gres=gpu:1 -N1 -n1 --quiet\" or \"ssh "
         "gpu-node\" (split into words as a shell would, no shell run): the worker runs where the launcher puts it, "
         "talking through its stdin and stdout, and gi-worker's path must be the same there (docs/cluster.md). A "
         "worker lost with its launcher is replaced and its variant run again");
    text("--compile-launcher", cuda.compile_launcher, "\"CMD ...\"",
         "start NVRTC's compile processes (gi-tool --nvrtc-server) through this command prefix, e.g. \"srun -N1 -n1 "
         "--cpus-per-task=1 --quiet\" or \"ssh build-node\", where this machine's CPUs are the limit (the run notes' "
         "wait for compiles says so): gi-tool's path must be the same there, the kernel's headers are sent. --jobs "
         "sets how many run at once. A process lost with its launcher is replaced and its compile run again");
    flag("--compile-on-workers", cuda.compile_on_workers,
         "start NVRTC's compile processes through --worker-launcher's command, as the workers (docs/cluster.md: with "
         "srun --gres=gpu:1 each then holds a GPU; --compile-launcher gives a command of its own)");
    integer("--launcher-retries", o.launcher_retries, 0, 1000,
            "workers (or compile processes) lost with their launcher in a row on one request before the run stops")
        .hidden();
    flag("--nvcc-only", o.nvcc_only,
         "compile every variant with nvcc, also where NVRTC takes the file or its device side (slower; to compare "
         "against NVRTC's builds)")
        .hidden();
    text("--sanitizer", o.sanitizer, "PATH", "compute-sanitizer (default: PATH, /usr/local/cuda/bin)");
    integer("--warmups", o.warmups, 0, 1000, "untimed runs per variant");
    integer("--repetitions", o.repetitions, 1, 10000, "timed runs per variant");
    app.add_number("--batch-timing-below-ms", o.batch_timing_below_ms, 0, 1e6,
                   "a kernel faster than this (the original's median on a case) is timed in batches of launches back "
                   "to back, about a millisecond each, each repetition their mean (0: single launches always)")
        .group(group)
        .hidden();
    app.add_number("--timeout-factor", o.timeout_factor, 1, 1e6, "a variant may run X times the original's time").group(group);
    integer("--timeout-margin-ms", o.timeout_margin_ms, 0, 3600000,
            "plus this for a variant's check launch; a fault the driver reports later counts as a timeout")
        .hidden();
    flag("--no-loop-guard", cuda.no_loop_guard,
         "check variants as compiled, without guarding their loops and barriers; a loop that runs away or a barrier "
         "deadlock is then only stopped by killing its worker (slow)")
        .hidden();
    integer("--loop-guard-margin-ms", o.guard_margin_ms, 0, 3600000,
            "a guarded loop stops, and a guarded barrier gives up, at the original's time x factor + N ms")
        .hidden();
    flag("--no-barrier-guard", cuda.no_barrier_guard, "guard loops only; a barrier deadlock then costs a worker")
        .hidden();
    flag("--no-shared-guard", cuda.no_shared_guard,
         "leave __shared__ array accesses unchecked in the guarded build; an access outside its array then faults and "
         "costs a worker")
        .hidden();
    flag("--separate-guard-build", cuda.separate_guard_build,
         "compile each variant's guarded build apart from its plain build (two compiles and two module loads instead "
         "of one; slower)")
        .hidden();
    text("--guard-fast-compile", o.guard_fast_compile, "LEVEL",
         "compile each variant's guarded build (it runs the check; the plain build is timed and shipped) with "
         "-Ofc=LEVEL (min, mid, max), apart from its plain build; 0: optimised as the plain build and in its module, "
         "as before (slow for heavily unrolled loops). The original's guarded build must reproduce its outputs, or "
         "the run falls back to 0; CUDA 12.8 or later, else 0")
        .check([](const std::string& level) -> std::string {
            return level == "0" || level == "min" || level == "mid" || level == "max" ? ""
                                                                                       : "needs min, mid, max or 0, got '" + level + "'";
        })
        .hidden();
    flag("--run-binary-duplicates", cuda.run_binary_duplicates,
         "run and sanitize every variant, also one whose build is the same program as one run before (by default it "
         "gets that one's result: within a batch for runs, across the whole search for sanitizer verdicts)")
        .hidden();
    flag("--gpu-turn-per-run", cuda.gpu_turn_per_run,
         "with the sanitizer gate's checks running alongside evaluation, let them take the GPU between any two timed "
         "runs (by default evaluation keeps the GPU from one run to the next while their builds are ready, and the "
         "checks run while it waits for compiles); for A/B")
        .hidden();
    flag("--original-once", cuda.original_once,
         "time the original once a batch, before its variants (by default it is timed again after them and the faster "
         "timing is what they are compared with, so one slow outlier does not make them all look faster); for A/B")
        .hidden();
    path("--compile-cache", o.compile_cache, "DIR", "keep compiled variants here across runs");
    integer("--spare-workers", o.spare_workers, 0, 16, "GPU workers kept ready to replace one a variant killed")
        .hidden();
    integer("--sanitize-jobs", o.sanitize_jobs, 1, 64, "compute-sanitizer processes at once in the correctness gate",
            "half the cores, at most 8");
    integer("--sanitize-batch", o.sanitize_batch, 1, 256,
            "variants one compute-sanitizer process checks in turn (1: a process each); a batch that fails is checked "
            "again one by one")
        .hidden();
    integer("--sanitize-sessions", o.sanitize_sessions, 0, 64,
            "compute-sanitizer processes kept running across the gate's waves, each checking batches in turn (0: a "
            "process per batch). A batch they do not pass is checked in processes of its own",
            "--sanitize-jobs")
        .hidden();
    integer("--racecheck-sessions", o.racecheck_sessions, 1, 64,
            "of those processes, how many may run racecheck (the slow checker: variants that removed a barrier) at once",
            "a quarter of --sanitize-sessions, at least one")
        .hidden();
    integer("--sanitize-side-by-side", o.sanitize_side_by_side, 1, 64,
            "variants a racecheck or synccheck session runs at once, each on a stream and a copy of the gate's case of "
            "its own: their instrumented launches share the GPU instead of queueing (1: one at a time). A request that "
            "does not pass is checked again one variant at a time, so every verdict is a single variant's own",
            "8")
        .hidden();
    integer("--gate-guard-kib", o.gate_guard_kib, 0, 65536,
            "before compute-sanitizer, the gate runs each variant in gi-worker with guard zones of N KiB before and after "
            "every buffer; a variant that writes into them is rejected at once (memcheck's report of such a write takes "
            "seconds), the others go on to compute-sanitizer as before. Needs --sanitize-sessions above 0; 0: off")
        .hidden();
    flag("--no-gate-guard-pages", cuda.no_gate_guard_pages,
         "in the guard zones' run, end each buffer with a zone instead of an unmapped page. With the page (the "
         "default), a variant that reads or writes past a buffer's end faults at native speed and is rejected without "
         "compute-sanitizer, whose report of such reads takes seconds; buffers then start at 16-byte boundaries, and a "
         "variant that faults otherwise goes on to memcheck as before")
        .hidden();
    // Scripts written while the pages were off by default still pass this.
    flag("--gate-guard-pages", cuda.gate_guard_pages, "the default: see --no-gate-guard-pages").hidden();
    flag("--no-sanitize-prewarm", cuda.no_sanitize_prewarm,
         "start those processes at the first gate, not when search begins (their start-up, seconds each, then delays "
         "the first generations)")
        .hidden();
}

CudaEvaluatorOptions cuda_evaluator_options(const CommandLine& app, const CudaCommandLine& cuda, const CompilerChoice& compiler,
                                            const std::string& registered_block_size) {
    CudaEvaluatorOptions o = cuda.options;
    if (!app.given("--cases"))
        throw UsageError("--evaluator cuda needs --cases DIR (the folder GI_RECORD_DIR pointed to when the program was recorded)");
    if (!app.given("--block")) o.block = registered_block_size;
    o.arch = compiler.arch;
    o.nvcc = compiler.nvcc;
    o.jobs = compiler.jobs;
    o.loop_guard = !cuda.no_loop_guard;
    if (!o.loop_guard && app.given("--loop-guard-margin-ms"))
        throw UsageError("--loop-guard-margin-ms has no effect with --no-loop-guard; drop one of them");
    if (!o.loop_guard && cuda.no_barrier_guard)
        throw UsageError("--no-barrier-guard has no effect with --no-loop-guard (which guards neither); drop one of them");
    if (!o.loop_guard && cuda.separate_guard_build)
        throw UsageError("--separate-guard-build has no effect with --no-loop-guard (there is no guarded build); drop one of them");
    if (!o.loop_guard && app.given("--guard-fast-compile"))
        throw UsageError("--guard-fast-compile has no effect with --no-loop-guard (there is no guarded build); drop one of them");
    if (cuda.separate_guard_build && app.given("--guard-fast-compile") && o.guard_fast_compile != "0")
        throw UsageError("--separate-guard-build has no effect with --guard-fast-compile " + o.guard_fast_compile +
                         " (fast-compiled guarded builds are always separate); drop one of them");
    if (!o.loop_guard && cuda.no_shared_guard)
        throw UsageError("--no-shared-guard has no effect with --no-loop-guard (there is no guarded build); drop one of them");
    if (app.given("--sanitize-side-by-side") && app.given("--sanitize-sessions") && o.sanitize_sessions == 0)
        throw UsageError("--sanitize-side-by-side has no effect with --sanitize-sessions 0 (no long-lived processes); drop one of them");
    if (app.given("--racecheck-sessions") && app.given("--sanitize-sessions") && o.sanitize_sessions == 0)
        throw UsageError("--racecheck-sessions has no effect with --sanitize-sessions 0 (no long-lived processes); drop one of them");
    o.barrier_guard = o.loop_guard && !cuda.no_barrier_guard;
    o.shared_guard = o.loop_guard && !cuda.no_shared_guard;
    o.paired_guard_build = o.loop_guard && !cuda.separate_guard_build;
    o.reuse_binary_duplicates = !cuda.run_binary_duplicates;
    o.gpu_turn_per_run = cuda.gpu_turn_per_run;
    o.original_once = cuda.original_once;
    o.sanitize_prewarm = !cuda.no_sanitize_prewarm;
    if (cuda.gate_guard_pages && cuda.no_gate_guard_pages)
        throw UsageError("--gate-guard-pages and --no-gate-guard-pages contradict each other; drop one of them");
    o.gate_guard_pages = !cuda.no_gate_guard_pages;
    o.nvrtc_server = nvrtc_server_program();
    if (app.given("--worker-launcher")) o.worker_launcher = worker::split_launcher_command(cuda.worker_launcher);
    if (app.given("--compile-launcher") && cuda.compile_on_workers)
        throw UsageError("--compile-on-workers starts the compiles through --worker-launcher's command, and --compile-launcher "
                         "gives another; drop one of them");
    if (app.given("--compile-launcher")) {
        o.compile_launcher = worker::split_launcher_command(cuda.compile_launcher, "--compile-launcher");
        o.compile_launcher_option = "--compile-launcher / GI_COMPILE_LAUNCHER";
    } else if (cuda.compile_on_workers) {
        if (o.worker_launcher.empty())
            throw UsageError("--compile-on-workers starts the compiles through --worker-launcher's command, and there is none "
                             "(workers are local); give --worker-launcher, or --compile-launcher CMD");
        o.compile_launcher = o.worker_launcher;
        o.compile_launcher_option = "--compile-on-workers (--worker-launcher)";
    }
    if (!o.compile_launcher.empty() && o.nvcc_only)
        throw UsageError("--compile-launcher (or --compile-on-workers) moves NVRTC's compiles, and --nvcc-only compiles every "
                         "variant with nvcc, here; drop one of them");
    if (app.given("--launcher-retries") && o.worker_launcher.empty() && o.compile_launcher.empty())
        throw UsageError("--launcher-retries has no effect without --worker-launcher or --compile-launcher (every process is "
                         "local); drop it");
    if (o.gpus_mixed && o.gpus.empty())
        throw UsageError("--gpus-mixed has no effect without --gpus (one GPU is one model); drop it or give --gpus");
    // GI_WORKER_DEVICE names a GPU of this host; a launcher's worker runs where the launcher puts it,
    // on the GPU it gives it (srun --gres=gpu:1).
    if (!o.gpus.empty() && !o.worker_launcher.empty())
        throw UsageError("--gpus spreads the evaluation over this host's GPUs, but --worker-launcher starts every worker "
                         "elsewhere, on the GPU its launcher gives it; drop one of them");
    if (!o.gpus.empty()) parse_gpu_selection(o.gpus, "--gpus");
    return o;
}

}  // namespace gi::cli
