// `gi-tool cuda-bench`: measures the cuda evaluator's throughput on a kernel and its recorded
// cases with random single/multi-edit variants (what a search evaluates), and reports variants per
// minute, compile and run time per variant, where the time goes and the timing noise.
#include <chrono>
#include <fstream>
#include <limits>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "cli/command.hpp"
#include "cli/cuda_options.hpp"
#include "cli/evaluator_options.hpp"
#include "genome/genome_list.hpp"
#include "cuda/cuda_classify.hpp"
#include "cuda/cuda_evaluator.hpp"
#include "cli/evaluator_factory.hpp"
#include "genome/random_edit.hpp"
#include "util/elapsed.hpp"
#include "util/error.hpp"
#include "util/output_path.hpp"
#include "util/format.hpp"
#include "util/rng.hpp"
#include "variant/apply.hpp"

namespace gi::cli {
namespace {

const char* const kUsage = "usage: gi-tool cuda-bench KERNEL.cu --function NAME --cases DIR [options]\n";
const char* const kAbout =
    "  Evaluates random variants of the kernel on the GPU with the cuda evaluator, as a search would,\n"
    "  and prints variants per minute, compile and run time per variant, the share of wall time in\n"
    "  each, the original's timing noise, and what bounds the rate.\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool record kernels/stereo/stereo.cu --function stereo_kernel --out cases -- build/kernels/stereo_driver\n"
    "  gi-tool cuda-bench kernels/stereo/stereo.cu --function stereo_kernel --cases cases --variants 1000\n";

struct BenchCommandLine {
    KernelSettings kernel;
    CompilerChoice compiler;
    CudaCommandLine cuda;
    long long variants = 1000, batch = 100, max_edits = 3, sanitize = 0;
    bool sanitize_removed_barriers = false, sanitize_every_gate_case = false;
    std::uint64_t seed = 1;
    std::string genomes, log;
};

void declare(CommandLine& app, BenchCommandLine& c) {
    app.add_kernel_options(c.kernel);
    const std::string group = "bench options";
    app.add_integer("--variants", c.variants, 1, 10000000, "distinct variants to evaluate").group(group);
    app.add_integer("--batch", c.batch, 1, 100000, "variants per evaluate() call, as a population").group(group);
    app.add_integer("--max-edits", c.max_edits, 1, 100, "edits per variant, drawn from 1..N").group(group);
    app.add_integer("--seed", c.seed, 0, std::numeric_limits<long long>::max(), "random seed").group(group);
    app.add_integer("--sanitize", c.sanitize, 0, 100000,
                    "then put the first N correct variants through the search's sanitizer gate, all at once as one wave "
                    "of would-be parents, on the case the gate runs on (the first --sanitize-cases case, else case 0), "
                    "and print its wall time and where it went")
        .group(group);
    app.add_switch("--sanitize-every-gate-case", c.sanitize_every_gate_case,
                   "with --sanitize: the wave goes through the gate once on each case the gate runs on (each launch "
                   "--sanitize-cases recorded), as a search's generations do in turn; a variant that reads past a "
                   "buffer only in some launches is found there")
        .group(group);
    app.add_switch("--sanitize-removed-barriers", c.sanitize_removed_barriers,
                 "with --sanitize: only variants with fewer __syncthreads() than the original (those the gate also "
                 "checks with racecheck and synccheck)")
        .group(group);
    app.add_text("--genomes", c.genomes, "FILE",
             "evaluate these genomes instead of random ones: one per line, as gi-tool writes them, optionally after a "
             "case number and a tab (the case it is run on; otherwise drawn per batch); blank lines and lines starting "
             "with # are skipped. To re-judge a recorded search's individuals")
        .group(group);
    app.add_text("--log", c.log, "FILE",
             "one line per variant: number, case, status, error (the mean penalty, every digit), genome, the first line "
             "of the detail (tab-separated), to see which edits hang, crash or differ, or to compare two builds' verdicts "
             "on the same variants (the same seed draws the same variants and cases)")
        .group(group);
    const std::string cuda_group = "cuda evaluator options";
    add_compiler_options(app, c.compiler, cuda_group);
    add_cuda_options(app, c.cuda, cuda_group);
}

int run_cuda_bench(const std::vector<std::string>& raw) {
    BenchCommandLine c;
    CommandLine app(kUsage, kAbout, kExamples);
    declare(app, c);
    if (!app.parse(raw)) return kExitOk;
    const long long wanted = c.variants;
    const long long batch_size = c.batch;
    const long long max_edits = c.max_edits;
    const long long to_sanitize = c.sanitize;
    if (c.sanitize_removed_barriers && to_sanitize == 0)
        throw UsageError("--sanitize-removed-barriers chooses which variants --sanitize N checks; give --sanitize N too");
    std::ofstream log;
    if (!c.log.empty()) {
        // A log written line by line as the bench goes (so not renamed into place): never over an input.
        OutputGuard guard;
        guard.keep(kernel_path_from(c.kernel), "the kernel file");
        if (!c.genomes.empty()) guard.keep(c.genomes, "the --genomes file");
        guard.check("--log", c.log, "the log");
        log.open(c.log);
        if (!log) throw UsageError("--log " + c.log + ": cannot write this file (does its folder exist?)");
    }
    Rng rng(c.seed);

    const Grammar grammar = grammar_from(c.kernel);
    EvaluatorSettings settings = evaluator_settings_for(c.kernel);
    settings.cuda = cuda_evaluator_options(app, c.cuda, c.compiler, c.kernel.block_size);
    // --gpus: the batches are spread over the GPUs as evolve spreads them; the detailed counters
    // below are the first GPU's, the rate all of them together.
    CudaEvaluatorOptions cuda_options = cuda_options_for(settings);
    std::unique_ptr<MultiGpuEvaluator> spread;
    std::unique_ptr<CudaEvaluator> single;
    if (!cuda_options.gpus.empty() && !parse_gpu_selection(cuda_options.gpus, "--gpus").just_the_default()) {
        const bool mixed = cuda_options.gpus_mixed;
        GpuSelection gpus = parse_gpu_selection(cuda_options.gpus, "--gpus");
        spread = std::make_unique<MultiGpuEvaluator>(grammar, std::move(cuda_options), std::move(gpus), mixed);
    } else {
        single = std::make_unique<CudaEvaluator>(grammar, std::move(cuda_options));
    }
    Evaluator& runner = spread ? static_cast<Evaluator&>(*spread) : *single;
    VariantChecker& checker = *runner.checker();
    CudaEvaluator& evaluator = spread ? *spread->gpus().front() : *single;

    std::vector<Variant> variants;
    std::vector<int> cases;  // per variant, the case --genomes gave it (-1: drawn per batch)
    if (const std::string path = c.genomes; !path.empty()) {
        if (app.given("--variants") || app.given("--max-edits"))
            throw UsageError("--genomes " + path + ": give either --genomes or --variants/--max-edits, not both");
        for (const GenomeLine& line : read_genome_lines(path)) {
            variants.push_back(make_variant(line.genome, grammar));
            cases.push_back(line.case_index);
        }
    } else {
        const EditSpace space(grammar, macros_for(Genome{}, grammar));
        if (space.empty()) throw Error(grammar.source_path + ": the grammar offers no edits, so there is nothing to benchmark");
        std::set<std::string> keys;
        for (long long attempts = 0; static_cast<long long>(variants.size()) < wanted && attempts < 50 * wanted; ++attempts) {
            Genome genome;
            const long long edits = rng.uniform_int(1, max_edits);
            for (long long e = 0; e < edits; ++e)
                if (auto edit = space.draw(rng)) genome.edits.push_back(*edit);
            Variant v = make_variant(genome, grammar);
            if (keys.insert(v.key).second) variants.push_back(std::move(v));
        }
        cases.assign(variants.size(), -1);
    }

    for (std::size_t i = 0; i < cases.size(); ++i)
        if (cases[i] >= evaluator.case_count())
            throw UsageError("--genomes: genome " + std::to_string(i + 1) + " names case " + std::to_string(cases[i]) + ", but " +
                             std::to_string(evaluator.case_count()) + " training cases were loaded (0.." +
                             std::to_string(evaluator.case_count() - 1) + ")");
    std::string on = evaluator.device_name() + " (" + evaluator.arch() + ")";
    if (spread) {
        const std::vector<int> ordinals = spread->ordinals();
        on = std::to_string(ordinals.size()) + " GPUs (";
        for (std::size_t g = 0; g < ordinals.size(); ++g)
            on += (g ? ", " : "") + std::to_string(ordinals[g]) + " " + spread->gpus()[g]->device_name();
        on += "; " + evaluator.arch() + ")";
    }
    std::cout << "cuda-bench: " << grammar.source_path << " on " << on << ", " << variants.size() << (!c.genomes.empty() ? " variants from --genomes" : " distinct variants")
              << ", batches of " << batch_size << "\n" << std::flush;
    // As search does: the gate's sessions start now, while the variants are evaluated.
    if (to_sanitize > 0) checker.expect_checks();
    std::map<EvalStatus, long> statuses;
    int original_launches = 1;  // launches per timed repetition on the last batch's case
    Timing original;
    std::vector<const Variant*> correct;
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t first = 0, last = 0; first < variants.size(); first = last) {
        // A batch: up to --batch variants, all on one case (the genomes' own, or one drawn).
        last = std::min(variants.size(), first + static_cast<std::size_t>(batch_size));
        for (std::size_t i = first + 1; i < last; ++i)
            if (cases[i] != cases[first]) last = i;
        const std::vector<Variant> batch(variants.begin() + static_cast<long>(first), variants.begin() + static_cast<long>(last));
        const int drawn = static_cast<int>(rng.index(static_cast<std::size_t>(evaluator.case_count())));
        const int case_index = cases[first] >= 0 ? cases[first] : drawn;
        const BatchResult result = runner.evaluate(batch, case_index);
        original = result.original;
        original_launches = evaluator.launches_per_time(case_index);
        for (std::size_t i = 0; i < result.results.size(); ++i) {
            ++statuses[result.results[i].status];
            if (log.is_open()) {
                const std::string& detail = result.results[i].detail;
                log << first + i << '\t' << case_index << '\t' << to_string(result.results[i].status) << '\t'
                    << exact(result.results[i].error) << '\t'
                    << genome_to_text(variants[first + i].genome) << '\t' << detail.substr(0, detail.find('\n')) << '\n';
            }
            if (result.results[i].status == EvalStatus::Ok && result.results[i].error == 0) correct.push_back(&variants[first + i]);
        }
        // Progress, so a run cut short still tells where the time went.
        const double so_far = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        std::printf("  %zu variants in %.1f s:", last, so_far);
        for (const auto& [status, count] : statuses) std::printf(" %s %ld", to_string(status).c_str(), count);
        std::printf(" (restarts %ld, timeouts %ld, loop overruns %ld, shared out of bounds %ld, corrupting %ld)\n",
                    evaluator.stats().workers.worker_restarts, evaluator.stats().runs.timeouts, evaluator.stats().runs.loop_overruns,
                    evaluator.stats().runs.out_of_bounds, evaluator.stats().runs.corrupting);
        std::fflush(stdout);
    }
    const double wall_ms = ms_since(start);
    const CudaEvaluatorStats& s = evaluator.stats();
    long all_variants = s.variants;
    if (spread) {
        all_variants = 0;
        std::printf("variants per GPU:");
        for (std::size_t g = 0; g < spread->gpus().size(); ++g) {
            const long n = spread->gpus()[g]->stats().variants;
            all_variants += n;
            std::printf(" GPU %d %ld", spread->ordinals()[g], n);
        }
        std::printf(" (the lines below but the rate are GPU %d's)\n", spread->ordinals().front());
    }
    const double per_minute = static_cast<double>(all_variants) / (wall_ms / 60000.0);
    const long runs = s.variants - s.duplicates - s.binary_duplicates - statuses[EvalStatus::CompileError];

    auto share = [&](double ms) { return 100.0 * ms / wall_ms; };
    std::printf("variants evaluated: %ld in %.1f s\n", all_variants, wall_ms / 1000);
    std::printf("variants per minute: %.0f\n", per_minute);
    std::printf("answered without a run: %ld repeated in their batch, %ld compiled to the module of an earlier variant in "
                "their batch (binary duplicates); %ld variant runs\n",
                s.duplicates, s.binary_duplicates, runs);
    std::printf("compile ms per variant: %.1f (one compile's time with %s; %ld compiled, of which %ld separate loop-guarded builds%s, "
                "%ld paired builds (plain and guarded in one module), %ld paired compiles that failed and fell back to "
                "separate builds; %ld cache hits, compiled in parallel)\n",
                s.build.compiled ? s.build.compile_cpu_ms / static_cast<double>(s.build.compiled) : 0.0, s.build.compiler.c_str(), s.build.compiled,
                s.build.guard_compiled, s.build.guard_options.empty() ? "" : (" at " + s.build.guard_options).c_str(), s.build.paired_builds, s.build.paired_fallbacks, s.build.cache_hits);
    std::printf("run ms per variant: %.1f (worker request: module load, input copies, a poisoned check run, timed launches, comparison)\n",
                runs > 0 ? s.runs.run_ms / static_cast<double>(runs) : 0.0);
    if (s.runs.staged_runs > 0) {
        const double n = static_cast<double>(s.runs.staged_runs);
        // Over the runs that reported their stages (those that finished: no timeouts, no crashes).
        const double staged = s.runs.stage_load_ms + s.runs.stage_check_ms + s.runs.stage_compare_ms + s.runs.stage_timed_ms + s.runs.stage_integrity_ms;
        std::printf("run stages, ms per finished run: request %.2f = module load %.2f + check run (restore included) %.2f "
                    "+ comparison %.2f + timed repetitions %.2f + integrity check of the worker's copies %.2f "
                    "+ rest %.2f (in the worker outside these stages %.2f; pipes, payload and the parent %.2f); "
                    "between requests the worker unloaded earlier modules for %.2f (%ld runs)\n",
                    s.runs.stage_request_ms / n, s.runs.stage_load_ms / n, s.runs.stage_check_ms / n, s.runs.stage_compare_ms / n,
                    s.runs.stage_timed_ms / n, s.runs.stage_integrity_ms / n, std::max(0.0, (s.runs.stage_request_ms - staged) / n),
                    std::max(0.0, (s.runs.stage_worker_ms - staged) / n), std::max(0.0, (s.runs.stage_request_ms - s.runs.stage_worker_ms) / n),
                    s.runs.stage_unload_ms / n, s.runs.staged_runs);
        std::printf("comparison: %ld output buffers found equal to the original's on the GPU, %ld copied to the host "
                    "and compared there (they differed, or had no copy of the reference on the GPU); integrity checks of the worker's "
                    "own buffers: %ld on the GPU, %ld read back to the host\n",
                    s.runs.compared_on_gpu, s.runs.compared_on_host, s.runs.integrity_on_gpu, s.runs.integrity_on_host);
        std::printf("module load, ms per finished run: %.2f = plain module %.2f + finding its kernel %.2f + the guarded "
                    "module and its symbols %.2f\n",
                    s.runs.stage_load_ms / n, s.runs.stage_load_plain_ms / n, s.runs.stage_load_find_ms / n, s.runs.stage_load_guard_ms / n);
        // Whether a killed worker's context still being torn down slows the next worker's driver calls.
        const long beside = s.runs.staged_beside_exiting, alone = s.runs.staged_runs - beside;
        auto mean = [](double sum, long count) { return count > 0 ? sum / static_cast<double>(count) : 0.0; };
        std::printf("beside killed workers, ms per finished run: %ld runs sent while a killed worker was still exiting: "
                    "module load %.2f, unloading before %.2f, timed repetitions %.2f; %ld runs with none exiting: "
                    "module load %.2f, unloading before %.2f, timed repetitions %.2f; %ld killed workers took %.0f ms "
                    "each to exit\n",
                    beside, mean(s.runs.beside_exiting_load_ms, beside), mean(s.runs.beside_exiting_unload_ms, beside),
                    mean(s.runs.beside_exiting_timed_ms, beside), alone, mean(s.runs.stage_load_ms - s.runs.beside_exiting_load_ms, alone),
                    mean(s.runs.stage_unload_ms - s.runs.beside_exiting_unload_ms, alone),
                    mean(s.runs.stage_timed_ms - s.runs.beside_exiting_timed_ms, alone), s.workers.killed_reaped, s.workers.killed_exit_ms);
    }
    std::printf("share of wall time: waiting for compiles %.0f%%, variant runs %.0f%%, original runs %.0f%%, worker restarts %.0f%%, other %.0f%%\n",
                share(s.compile_wait_ms), share(s.runs.run_ms), share(s.workers.original_ms), share(s.workers.restart_ms),
                std::max(0.0, 100 - share(s.compile_wait_ms) - share(s.runs.run_ms) - share(s.workers.original_ms) - share(s.workers.restart_ms)));
    std::printf("of which waiting for a spare worker after a failed variant: %.0f%%; for killed workers to exit before timing the original: %.0f%%; "
                "variants that timed out (their allowance): %.0f%%\n",
                share(s.spares.wait_ms), share(s.workers.reap_wait_ms), share(s.runs.timeout_ms));
    std::printf("restart ms per restart: %.1f (%ld restarts: %ld spares ready, %ld waited for, %ld cold starts; spares kept at the end %d, "
                "CUDA start-up %.0f ms; original's outputs handed over %ld times, recomputed %ld, hand-overs rejected %ld)\n",
                s.workers.worker_restarts ? s.workers.restart_ms / static_cast<double>(s.workers.worker_restarts) : 0.0, s.workers.worker_restarts, s.spares.ready,
                s.spares.waited, s.workers.cold_starts, s.spares.target, s.spares.startup_ms, s.workers.references_loaded, s.workers.references_recomputed,
                s.workers.references_rejected);
    std::printf("statuses:");
    for (const auto& [status, count] : statuses) std::printf(" %s %ld", to_string(status).c_str(), count);
    std::printf("\nworker restarts: %ld, timeouts: %ld, corrupting (wrote outside their buffers into the worker's "
                "copies of a case; Crash, worker replaced): %ld\n",
                s.workers.worker_restarts, s.runs.timeouts, s.runs.corrupting);
    std::printf("loop guard: %s; %ld runaway loops or barrier deadlocks and %ld accesses outside a __shared__ array stopped "
                "without a restart, %ld variants with loops ran unguarded (their guarded build failed)\n",
                evaluator.loop_guard() ? "on" : "off (--no-loop-guard)", s.runs.loop_overruns, s.runs.out_of_bounds, s.unguarded());
    std::printf("original kernel: median %.4f ms, spread %.5f ms (%.2f%% of the median, %d repetitions%s)\n", original.median_ms,
                original.spread_ms, 100 * original.spread_ms / original.median_ms, original.repetitions,
                original_launches > 1 ? (", each the mean of " + std::to_string(original_launches) + " launches").c_str() : "");
    if (s.originals_timed_twice > 0)
        std::printf("original timed before and after each batch's variants, the faster kept (--original-once: before "
                    "only): in %ld batches the first was slower beyond noise %ld times, the second %ld times\n",
                    s.originals_timed_twice, s.original_first_slower, s.original_second_slower);
    const char* bound = "the GPU worker (runs are sequential on one GPU; compiles finish in their shadow)";
    if (s.compile_wait_ms > s.runs.run_ms && s.compile_wait_ms > s.workers.restart_ms)
        bound = "compilation (the GPU worker waits for compiles; more cores or fewer options NVRTC lacks would help)";
    else if (s.workers.restart_ms > s.runs.run_ms)
        bound = "worker restarts (variants that hang or crash cost their worker; spares were not ready in time)";
    std::printf("bound by: %s\n", bound);
    if (to_sanitize > 0) {
        const int original_barriers = count_barriers(make_variant(Genome{}, grammar).source);
        std::vector<Variant> wave;
        long removed = 0;
        for (const Variant* v : correct) {
            if (static_cast<long long>(wave.size()) >= to_sanitize) break;
            const bool removes = needs_race_checks(v->source, original_barriers);
            if (c.sanitize_removed_barriers && !removes) continue;
            removed += removes ? 1 : 0;
            wave.push_back(*v);
        }
        std::vector<int> gate_cases = c.sanitize_every_gate_case ? checker.gate_only_cases() : std::vector<int>{};
        if (gate_cases.empty()) gate_cases = {checker.gate_case(0)};
        for (const int gate_case : gate_cases) {
            const auto sanitize_start = std::chrono::steady_clock::now();
            const std::vector<EvalResult> verdicts = checker.sanitize_many(wave, gate_case);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - sanitize_start).count();
            long failed = 0;
            for (std::size_t i = 0; i < verdicts.size(); ++i) {
                if (verdicts[i].status == EvalStatus::Ok) continue;
                ++failed;
                std::printf("sanitizer: %s: %s: case %d: %s\n", genome_to_text(wave[i].genome).c_str(),
                            to_string(verdicts[i].status).c_str(), gate_case,
                            verdicts[i].detail.substr(0, verdicts[i].detail.find('\n')).c_str());
            }
            std::printf("sanitizer gate: %zu correct variants (%ld of them removed a barrier) checked as one wave on case %d "
                        "in %.2f s of wall time (%.0f ms a variant), %ld failed\n",
                        wave.size(), removed, gate_case, seconds,
                        wave.empty() ? 0.0 : 1000 * seconds / static_cast<double>(wave.size()), failed);
        }
        for (const std::string& note : evaluator.run_notes())
            if (note.rfind("sanitizer gate:", 0) == 0) std::printf("note: %s\n", note.c_str());
    }
    return kExitOk;
}

const CommandRegistrar registrar({"cuda-bench", "measure the cuda evaluator's throughput (variants per minute) on a GPU",
                                  run_cuda_bench});

}  // namespace
}  // namespace gi::cli
