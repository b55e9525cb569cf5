// The cuda evaluator's options as gi-tool evolve and cuda-bench read them (cli/cuda_options.hpp):
// each declared once with its default, range and help.
#include "cli/cuda_options.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli/help_text.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {

// The options a command line gives, parsed as `gi-tool cuda-bench` declares them.
struct Parsed {
    CompilerChoice compiler;
    CudaCommandLine cuda;
    CommandLine app{"usage: test\n", ""};
    CudaEvaluatorOptions options;
    std::string help, help_all;

    Parsed(const std::vector<std::string>& args, const std::string& registered_block_size = "") {
        add_compiler_options(app, compiler, "cuda evaluator options");
        add_cuda_options(app, cuda, "cuda evaluator options");
        help = app.help();
        help_all = app.help_all();
        app.parse(args);
        options = cuda_evaluator_options(app, cuda, compiler, registered_block_size);
    }
};

CudaEvaluatorOptions parsed(const std::vector<std::string>& args, const std::string& registered_block_size = "") {
    return Parsed(args, registered_block_size).options;
}

// The command line is refused with a UsageError that names `option`.
void expect_refused(const std::vector<std::string>& args, const std::string& option) {
    try {
        parsed(args);
        ADD_FAILURE() << "accepted what should name " << option;
    } catch (const UsageError& e) {
        EXPECT_NE(std::string(e.what()).find(option), std::string::npos) << e.what();
    }
}

// `option` is declared, and --help describes it.
void expect_documented(const std::string& option) {
    const std::string help = Parsed({"--cases", "c"}).help;
    EXPECT_NE(help.find("  " + option), std::string::npos) << option << " in\n" << help;
}

// `option` is declared and --help-all describes it; --help leaves it out (a knob for measurements).
void expect_hidden(const std::string& option) {
    const Parsed parsed({"--cases", "c"});
    EXPECT_EQ(parsed.help.find("  " + option + " "), std::string::npos) << option << " in\n" << parsed.help;
    EXPECT_NE(parsed.help_all.find("  " + option + " "), std::string::npos) << option << " in\n" << parsed.help_all;
}

// The registration's --block-size is the launch's block unless --block says otherwise (issue 17:
// a build's .registration carries --block-size only).
TEST(CudaOptions, TheRegisteredBlockSizeIsTheBlockUnlessBlockIsGiven) {
    EXPECT_EQ(parsed({"--cases", "c"}, "BLOCK_W,DPER").block, "BLOCK_W,DPER");
    EXPECT_EQ(parsed({"--cases", "c", "--block", "64"}, "BLOCK_W,DPER").block, "64");
    EXPECT_EQ(parsed({"--cases", "c"}).block, "");
    EXPECT_EQ(parsed({"--cases", "c", "--sanitize-batch", "3"}).sanitize_batch, 3);
    EXPECT_EQ(parsed({"--cases", "c"}).sanitize_batch, 8);
}

TEST(CudaOptions, DefaultsAndValues) {
    const CudaEvaluatorOptions o = parsed({"--cases", "/tmp/c", "--tolerance", "abs=1e-3", "--tolerance=out:exact",
                                           "--repetitions", "20", "--block", "BLOCK_W,4", "--arch", "sm_90"});
    EXPECT_EQ(o.cases, "/tmp/c");
    EXPECT_EQ(o.tolerances, (std::vector<std::string>{"abs=1e-3", "out:exact"}));
    EXPECT_EQ(o.repetitions, 20);
    EXPECT_EQ(o.warmups, 2);
    EXPECT_EQ(o.block, "BLOCK_W,4");
    EXPECT_EQ(o.arch, "sm_90");
    EXPECT_EQ(parsed({"--cases", "c", "--arch", "90"}).arch, "sm_90");  // as the cache commands write it
    EXPECT_EQ(o.spare_workers, 4);
    EXPECT_EQ(o.sanitize_jobs, 0);  // the evaluator's own choice
    EXPECT_EQ(o.jobs, 0);           // every core
    EXPECT_EQ(o.timeout_margin_ms, 30);
    EXPECT_TRUE(o.loop_guard);
    EXPECT_EQ(o.guard_margin_ms, 2);
    EXPECT_EQ(o.set_aside, -1);
    EXPECT_EQ(o.batch_timing_below_ms, 0.2);
    EXPECT_EQ(parsed({"--cases", "c", "--batch-timing-below-ms", "0"}).batch_timing_below_ms, 0);
}

// The last of a value option given twice counts, as with compilers.
TEST(CudaOptions, TheLastValueCounts) {
    EXPECT_EQ(parsed({"--cases", "a", "--repetitions", "5", "--repetitions", "7"}).repetitions, 7);
    EXPECT_EQ(parsed({"--cases", "a", "--cases", "b"}).cases, "b");
}

TEST(CudaOptions, TheHelpShowsEachOptionWithItsDefault) {
    const std::string help = Parsed({"--cases", "c"}).help;
    EXPECT_NE(help.find("cuda evaluator options:\n"), std::string::npos) << help;
    EXPECT_NE(help.find("--repetitions N"), std::string::npos) << help;
    EXPECT_NE(help.find("timed runs per variant (default 10)"), std::string::npos) << help;
    std::string one_line = help;  // the help with its wrapping undone
    for (std::size_t at; (at = one_line.find("\n" + std::string(kHelpNameColumn, ' '))) != std::string::npos;)
        one_line.replace(at, kHelpNameColumn + 1, " ");
    EXPECT_NE(one_line.find("(default half the cores, at most 8)"), std::string::npos) << help;
    EXPECT_NE(help.find("exit status: 0 ok, 1 failure, 2 usage error"), std::string::npos) << help;
    for (const std::string& line : [&] {
             std::vector<std::string> lines;
             std::size_t start = 0;
             for (std::size_t end; (end = help.find('\n', start)) != std::string::npos; start = end + 1)
                 lines.push_back(help.substr(start, end - start));
             return lines;
         }())
        EXPECT_LE(line.size(), kHelpWidth) << line;
}

TEST(CudaOptions, LoopGuardOptions) {
    EXPECT_FALSE(parsed({"--cases", "c", "--no-loop-guard"}).loop_guard);
    const CudaEvaluatorOptions o = parsed({"--cases", "c", "--loop-guard-margin-ms", "7"});
    EXPECT_TRUE(o.loop_guard);
    EXPECT_EQ(o.guard_margin_ms, 7);
    expect_hidden("--no-loop-guard");
    expect_hidden("--loop-guard-margin-ms");
    // A margin for a guard that is off.
    expect_refused({"--cases", "c", "--loop-guard-margin-ms", "5", "--no-loop-guard"}, "--no-loop-guard");
}

TEST(CudaOptions, BarrierGuardIsOnWithTheLoopGuardUnlessTurnedOff) {
    EXPECT_TRUE(parsed({"--cases", "c"}).barrier_guard);
    EXPECT_FALSE(parsed({"--cases", "c", "--no-barrier-guard"}).barrier_guard);
    EXPECT_TRUE(parsed({"--cases", "c", "--no-barrier-guard"}).loop_guard);
    EXPECT_FALSE(parsed({"--cases", "c", "--no-loop-guard"}).barrier_guard);
    expect_hidden("--no-barrier-guard");
    // Turning off a guard that --no-loop-guard already turned off.
    expect_refused({"--cases", "c", "--no-loop-guard", "--no-barrier-guard"}, "--no-barrier-guard");
}

TEST(CudaOptions, SharedGuardIsOnWithTheLoopGuardUnlessTurnedOff) {
    EXPECT_TRUE(parsed({"--cases", "c"}).shared_guard);
    EXPECT_FALSE(parsed({"--cases", "c", "--no-shared-guard"}).shared_guard);
    EXPECT_TRUE(parsed({"--cases", "c", "--no-shared-guard"}).barrier_guard);
    EXPECT_FALSE(parsed({"--cases", "c", "--no-loop-guard"}).shared_guard);
    expect_hidden("--no-shared-guard");
    expect_refused({"--cases", "c", "--no-loop-guard", "--no-shared-guard"}, "--no-shared-guard");
}

TEST(CudaOptions, PairedGuardBuildIsTheDefault) {
    EXPECT_TRUE(parsed({"--cases", "c"}).paired_guard_build);
    EXPECT_FALSE(parsed({"--cases", "c", "--separate-guard-build"}).paired_guard_build);
    EXPECT_FALSE(parsed({"--cases", "c", "--no-loop-guard"}).paired_guard_build);
    expect_hidden("--separate-guard-build");
    expect_refused({"--cases", "c", "--no-loop-guard", "--separate-guard-build"}, "--separate-guard-build");
    EXPECT_EQ(parsed({"--cases", "c"}).guard_fast_compile, "mid");
    EXPECT_EQ(parsed({"--cases", "c", "--guard-fast-compile", "0"}).guard_fast_compile, "0");
    EXPECT_EQ(parsed({"--cases", "c", "--guard-fast-compile", "max"}).guard_fast_compile, "max");
    EXPECT_TRUE(parsed({"--cases", "c", "--guard-fast-compile", "0", "--separate-guard-build"}).guard_fast_compile == "0");
    expect_hidden("--guard-fast-compile");
    expect_refused({"--cases", "c", "--guard-fast-compile", "fast"}, "needs min, mid, max or 0, got 'fast'");
    expect_refused({"--cases", "c", "--no-loop-guard", "--guard-fast-compile", "mid"}, "--guard-fast-compile");
    expect_refused({"--cases", "c", "--separate-guard-build", "--guard-fast-compile", "mid"}, "--separate-guard-build");
}

TEST(CudaOptions, RacecheckSessionsAreAQuarterUnlessGiven) {
    EXPECT_EQ(parsed({"--cases", "c"}).racecheck_sessions, 0);
    EXPECT_EQ(parsed({"--cases", "c", "--racecheck-sessions", "6"}).racecheck_sessions, 6);
    expect_hidden("--racecheck-sessions");
    expect_refused({"--cases", "c", "--racecheck-sessions", "0"}, "--racecheck-sessions");
    expect_refused({"--cases", "c", "--racecheck-sessions", "4", "--sanitize-sessions", "0"}, "--sanitize-sessions 0");
}

TEST(CudaOptions, SlowCheckersRunEightVariantsAtOnceUnlessGiven) {
    EXPECT_EQ(parsed({"--cases", "c"}).sanitize_side_by_side, 8);
    EXPECT_EQ(parsed({"--cases", "c", "--sanitize-side-by-side", "1"}).sanitize_side_by_side, 1);
    expect_hidden("--sanitize-side-by-side");
    expect_refused({"--cases", "c", "--sanitize-side-by-side", "0"}, "--sanitize-side-by-side");
    expect_refused({"--cases", "c", "--sanitize-side-by-side", "4", "--sanitize-sessions", "0"}, "--sanitize-sessions 0");
}

TEST(CudaOptions, BinaryDuplicatesGetTheFirstResultUnlessAskedToRun) {
    EXPECT_TRUE(parsed({"--cases", "c"}).reuse_binary_duplicates);
    EXPECT_FALSE(parsed({"--cases", "c", "--run-binary-duplicates"}).reuse_binary_duplicates);
    expect_hidden("--run-binary-duplicates");
}

TEST(CudaOptions, EvaluationKeepsItsGpuTurnUnlessAskedToTakeOneARun) {
    EXPECT_FALSE(parsed({"--cases", "c"}).gpu_turn_per_run);
    EXPECT_TRUE(parsed({"--cases", "c", "--gpu-turn-per-run"}).gpu_turn_per_run);
    expect_hidden("--gpu-turn-per-run");
}

TEST(CudaOptions, TheOriginalIsTimedTwiceABatchUnlessAskedToTimeItOnce) {
    EXPECT_FALSE(parsed({"--cases", "c"}).original_once);
    EXPECT_TRUE(parsed({"--cases", "c", "--original-once"}).original_once);
    expect_hidden("--original-once");
}

TEST(CudaOptions, MalformedValuesNameTheOption) {
    expect_refused({}, "--cases");
    expect_refused({"--cases", "c", "--arch", "sm9x"}, "--arch 'sm9x' is not a CUDA architecture");
    expect_refused({"--cases", "c", "--jobs", "many"}, "--jobs needs an integer, got 'many'");
    expect_refused({"--cases", "c", "--repetitions", "0"}, "--repetitions must be between 1 and 10000, got 0");
    expect_refused({"--cases", "c", "--timeout-factor", "0.5"}, "--timeout-factor must be between 1 and");
    expect_refused({"--cases", "c", "--spare-workers", "99"}, "--spare-workers");
    expect_refused({"--cases", "c", "--sanitize-jobs", "0"}, "--sanitize-jobs");
    expect_refused({"--cases", "c", "--sanitize-jobs", "65"}, "--sanitize-jobs");
    expect_refused({"--cases", "c", "--loop-guard-margin-ms", "-1"}, "--loop-guard-margin-ms");
    expect_refused({"--cases", "c", "--loop-guard-margin-ms", "2ms"}, "--loop-guard-margin-ms needs an integer");
    expect_refused({"--cases", "c", "--repetitions"}, "option --repetitions needs a value");
    expect_refused({"--cases", "c", "--no-loop-guard=yes"}, "option --no-loop-guard takes no value");
    expect_refused({"--cases", "c", "--colour"}, "unknown option '--colour'");
    expect_refused({"--cases", "c", "stray"}, "unexpected argument 'stray'");
}

TEST(CudaOptions, SanitizerSessionOptions) {
    CudaEvaluatorOptions o = parsed({"--cases", "c"});
    EXPECT_TRUE(o.sanitize_prewarm);
    EXPECT_EQ(o.sanitize_sessions, -1);  // as many as --sanitize-jobs
    o = parsed({"--cases", "c", "--sanitize-sessions", "3", "--no-sanitize-prewarm"});
    EXPECT_FALSE(o.sanitize_prewarm);
    EXPECT_EQ(o.sanitize_sessions, 3);
    expect_hidden("--no-sanitize-prewarm");
    // One pool of sessions for all checkers lost its A/B (bench/results/2026-11-26-h200-sanitizer-gate.md).
    expect_refused({"--cases", "c", "--sanitize-shared-sessions"}, "unknown option '--sanitize-shared-sessions'");
    EXPECT_EQ(parsed({"--cases", "c", "--sanitize-cases", "small"}).sanitize_cases, "small");
    expect_documented("--sanitize-cases DIR");
    EXPECT_EQ(parsed({"--cases", "c"}).gate_guard_kib, 256);
    EXPECT_EQ(parsed({"--cases", "c", "--gate-guard-kib", "0"}).gate_guard_kib, 0);
    expect_refused({"--cases", "c", "--gate-guard-kib", "-1"}, "--gate-guard-kib");
    expect_hidden("--gate-guard-kib");
    // Guard pages are on by default since their A/B (bench/results/2026-11-29-h200-s20-guard-pages-made-rows.md);
    // the old switch that turned them on is still accepted.
    EXPECT_TRUE(parsed({"--cases", "c"}).gate_guard_pages);
    EXPECT_TRUE(parsed({"--cases", "c", "--gate-guard-pages"}).gate_guard_pages);
    EXPECT_FALSE(parsed({"--cases", "c", "--no-gate-guard-pages"}).gate_guard_pages);
    expect_refused({"--cases", "c", "--gate-guard-pages", "--no-gate-guard-pages"}, "contradict each other");
    expect_hidden("--no-gate-guard-pages");
    expect_hidden("--gate-guard-pages");
}

// NVRTC's compiles run in gi-tool processes of their own; only gi-tool serves them, so a parse in
// this test program leaves them in process. Compiling in gi-tool's own process lost its A/B
// (bench/results/2026-11-26-h200-nvrtc-processes.md): no option asks for it.
TEST(CudaOptions, NvrtcCompilesInGiToolProcesses) {
    EXPECT_EQ(parsed({"--cases", "c"}).nvrtc_server, "");
    expect_refused({"--cases", "c", "--nvrtc-in-process"}, "unknown option '--nvrtc-in-process'");
}

// What --help leaves to --help-all: switches kept for measurements and knobs the CMake module or a
// benchmark sets; --help says how many it left out and where they are.
TEST(CudaOptions, InternalKnobsAreListedByHelpAllOnly) {
    for (const std::string option : {"--worker", "--nvcc-only", "--batch-timing-below-ms", "--timeout-margin-ms",
                                     "--spare-workers", "--sanitize-batch", "--sanitize-sessions", "--launcher-retries"})
        expect_hidden(option);
    for (const std::string option : {"--cases", "--held-out", "--sanitize-cases", "--tolerance", "--repetitions",
                                     "--sanitize-jobs", "--compile-cache", "--arch", "--worker-launcher"})
        expect_documented(option);
    const Parsed parsed({"--cases", "c"});
    EXPECT_NE(parsed.help.find("23 options for measurements and the CMake module not listed: --help-all lists them"),
              std::string::npos)
        << parsed.help;
    EXPECT_EQ(parsed.help_all.find("not listed"), std::string::npos) << parsed.help_all;
    // Hidden options parse as any.
    EXPECT_EQ(parsed.options.sanitize_batch, 8);
    EXPECT_EQ(Parsed({"--cases", "c", "--sanitize-batch", "3"}).options.sanitize_batch, 3);
}

// --worker-launcher is split into words as a shell would (none is run); without it workers are local.
TEST(CudaOptions, TheWorkerLauncherIsSplitIntoWords) {
    EXPECT_TRUE(parsed({"--cases", "c"}).worker_launcher.empty());
    const CudaEvaluatorOptions o =
        parsed({"--cases", "c", "--worker-launcher", "srun --gres=gpu:1 -N1 -n1 --quiet --export='ALL,A=b c'", "--launcher-retries", "5"});
    EXPECT_EQ(o.worker_launcher,
              (std::vector<std::string>{"srun", "--gres=gpu:1", "-N1", "-n1", "--quiet", "--export=ALL,A=b c"}));
    EXPECT_EQ(o.launcher_retries, 5);
    expect_refused({"--cases", "c", "--worker-launcher", "ssh 'node"}, "--worker-launcher");
    expect_refused({"--cases", "c", "--launcher-retries", "2"}, "--launcher-retries");
}

// --compile-launcher starts NVRTC's processes through a command of its own, --compile-on-workers
// through the worker launcher's; without either they run here, as before.
TEST(CudaOptions, TheCompileLauncherIsItsOwnOrTheWorkers) {
    const CudaEvaluatorOptions plain = parsed({"--cases", "c", "--worker-launcher", "ssh node"});
    EXPECT_TRUE(plain.compile_launcher.empty());
    const CudaEvaluatorOptions own = parsed({"--cases", "c", "--compile-launcher", "srun -N1 --cpus-per-task=4 'a b'"});
    EXPECT_EQ(own.compile_launcher, (std::vector<std::string>{"srun", "-N1", "--cpus-per-task=4", "a b"}));
    EXPECT_TRUE(own.worker_launcher.empty());
    const CudaEvaluatorOptions shared =
        parsed({"--cases", "c", "--worker-launcher", "ssh node", "--compile-on-workers", "--launcher-retries", "1"});
    EXPECT_EQ(shared.compile_launcher, (std::vector<std::string>{"ssh", "node"}));
    EXPECT_EQ(shared.compile_launcher_option, "--compile-on-workers (--worker-launcher)");
    EXPECT_EQ(shared.launcher_retries, 1);
    EXPECT_EQ(parsed({"--cases", "c", "--compile-launcher", "ssh b", "--launcher-retries", "2"}).launcher_retries, 2);
    expect_refused({"--cases", "c", "--compile-on-workers"}, "--compile-on-workers starts the compiles through --worker-launcher");
    expect_refused({"--cases", "c", "--worker-launcher", "ssh a", "--compile-on-workers", "--compile-launcher", "ssh b"},
                   "drop one of them");
    expect_refused({"--cases", "c", "--compile-launcher", "ssh 'b"}, "--compile-launcher");
    expect_refused({"--cases", "c", "--compile-launcher", "ssh b", "--nvcc-only"}, "--nvcc-only");
    expect_documented("--compile-launcher");
    expect_documented("--compile-on-workers");
}

}  // namespace
}  // namespace gi::cli
