// `gi-tool evolve`: pre-tune, search, minimise and post-tune one kernel; writes the best variant,
// its genome, the run record and a checkpoint to --out.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <unistd.h>

#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cli/evaluator_options.hpp"
#include "cli/kernel_args.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "grammar/build_grammar.hpp"
#include "grammar/macro_reach.hpp"
#include "run/out_folder_names.hpp"
#include "run/search_history.hpp"
#include "search/ptx_edit_drawer.hpp"
#include "util/atomic_file.hpp"
#include "util/folder_lock.hpp"
#include "util/output_path.hpp"
#include "run/evolve.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {

const char* const kUsage =
    "usage: gi-tool evolve KERNEL.cu --function NAME [kernel options] --evaluator NAME --out DIR\n"
    "                      [--generations N] [--population N] [--seed S] [--time-limit S] [--resume]\n";
const char* const kAbout =
    "  Improves a CUDA kernel by genetic improvement (Langdon's method): tunes its declared\n"
    "  parameters, evolves patches of its own lines, removes the edits that do not matter, tunes\n"
    "  again, and writes to DIR: best.cu (the improved kernel), best.genome (its patch), run.xml\n"
    "  (the run record) and checkpoint.xml (to --resume an interrupted run). Every evaluated\n"
    "  individual goes into history.sqlite as it completes (see gi-tool history); pareto.xml holds\n"
    "  the (time, error) trade-off and the member --max-error chooses.\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel \\\n"
    "      --param BLOCK_W=32,64,128 --param ROWS_PER_THREAD=1..48 \\\n"
    "      --evaluator compile-only --arch sm_90 --generations 5 --population 20 --seed 7 --out run1\n"
    "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel --evaluator fake \\\n"
    "      --fake seed=3 --out run2 --time-limit 60\n"
    "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64,128 \\\n"
    "      --evaluator cuda --cases cases/ --held-out held-out/ --time-limit 480 --out run3\n"
    "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel --evaluator fake \\\n"
    "      --strategy anneal --workers 4 --generations 10 --out run4\n";

// Generations without progress that end a search bounded only by --time-limit: twice the 50 a run
// without a time limit gets in all, so a search that still finds faster variants is never cut short.
constexpr int kDefaultStagnation = 100;

// "K/N" into options.tune_shard and tune_shards; the range is checked with the other options.
void parse_tune_shard(const std::string& text, EvolveOptions& options) {
    const std::size_t slash = text.find('/');
    try {
        std::size_t used_k = 0, used_n = 0;
        if (slash == std::string::npos) throw std::invalid_argument("no slash");
        options.tune_shard = std::stoi(text.substr(0, slash), &used_k);
        options.tune_shards = std::stoi(text.substr(slash + 1), &used_n);
        if (used_k != slash || used_n != text.size() - slash - 1) throw std::invalid_argument("trailing text");
    } catch (const std::exception&) {
        throw UsageError("--tune-shard needs K/N (part K of N, e.g. 2/4), got '" + text + "'");
    }
}

// Everything `gi-tool evolve` reads from its command line.
struct EvolveCommandLine {
    KernelSettings kernel;
    EvolveOptions options;
    EvaluatorCommandLine evaluator;
    std::string out, tune_shard;
    bool resume = false, restart = false, pre_tune = false, no_pre_tune = false, post_tune = false, no_post_tune = false;
    bool no_minimise = false, quiet = false, no_gate_overlap = false, no_gate_prescreen = false;
    int workers = 0;  // 0: default_workers(evaluator)
    int target_architectures = 1;
    double ptx_edits = 0;
};

void declare(CommandLine& app, EvolveCommandLine& c) {
    EvolveOptions& o = c.options;
    app.add_kernel_options(c.kernel);
    const std::string group = "search options";
    app.add_text("--out", c.out, "DIR", "output directory (created if missing)").group(group).required();
    add_evaluator_options(app, c.evaluator);
    app.add_strategy(o.strategy).group(group);
    app.add_integer("--generations", o.generations, 0, 1000000, "generations to run",
                    "50; with --time-limit, until the time is spent or the search stagnates")
        .group(group);
    app.add_integer("--population", o.population, 2, 1000000, "individuals per generation").group(group);
    app.add_integer("--seed", o.seed, 0, std::numeric_limits<long long>::max(),
                "random seed; the same seed and inputs give the same run, also when interrupted and resumed (anneal: "
                "with the same --workers and --anneal-batch, whose default follows the machine's cores)")
        .group(group);
    app.add_number("--time-limit", o.time_limit_s, 0, 1e9,
               "wall-time budget in seconds for the whole run, from the command's start: each phase (pre-tuning, "
               "search, confirming the best, minimising, post-tuning, final checks) gets a deadline and stops there "
               "keeping its best so far, and the summary names a phase that ran past its own; the run ends within "
               "the limit plus a margin of 10% of it (10 to 60 s) unless one part of a generation or one check takes "
               "longer than that (docs/evaluation.md, \"The time limit\")",
               "none: --generations alone")
        .group(group);
    app.add_integer("--stagnation", o.stagnation, 0, 1000000,
                    "stop the search after N generations in a row without a best 1% faster than the best before them "
                    "(0: never)",
                    std::to_string(kDefaultStagnation) + " when the search runs until --time-limit; else 0")
        .group(group);
    app.add_number("--max-error", o.acceptance.max_error, 0, 1e300,
               "error a variant may have and still be accepted", "0: exact")
        .group(group);
    app.add_number("--noise-k", o.acceptance.noise_k, 0, 1e6,
               "a variant must beat the original by K x the combined timing spread")
        .group(group);
    app.add_number("--minimise-k", o.minimise_options.k, 0, 1e6,
               "minimisation keeps an edit only when removing it costs more than K x the medians' combined "
               "standard errors")
        .group(group);
    app.add_integer("--minimise-repeats", o.minimise_options.repeats, 1, 1000, "evaluations per minimisation comparison, a round (up to 4 rounds while a loss is within 1-k x noise)")
        .group(group);
    app.add_switch("--no-minimise", c.no_minimise, "keep the best genome as evolved").group(group);
    app.add_switch("--no-gate-overlap", c.no_gate_overlap,
                   "do not evaluate the next generation (as bred if every parent passes) while the sanitizer gate runs "
                   "(the two take turns on the GPU); results are the same either way, only slower")
        .group(group)
        .hidden();
    app.add_switch("--no-gate-prescreen", c.no_gate_prescreen,
                   "breed that next generation as if every would-be parent passes, without first checking them under "
                   "the guard zones alone; results are the same either way")
        .group(group)
        .hidden();
    app.add_number("--ptx-edits", c.ptx_edits, 0, 1,
                   "the share of code edits drawn as instruction edits on the kernel's PTX (delete, copy, move, swap, "
                   "operand; compiled by ptxas alone); needs --arch. Off by default. The CMake build ships such a "
                   "genome by compiling the wrapper through gi-tool nvcc-launcher (a .cu kernel registered alone in "
                   "its file, with gi-tool, under Ninja or Makefiles; elsewhere it builds the original kernel, saying "
                   "why); `cache verify --compile` replays them")
        .group(group)
        .hidden();
    app.add_text("--start", o.start_genome, "GENOME",
             "start from this genome instead of the original kernel (e.g. the winner of an exhaustive parameter sweep, "
             "or a cache entry's genome); pre-tuning then sweeps around it")
        .group(group);
    app.add_switch("--pre-tune", c.pre_tune, "sweep the --param/--flag genes before search (the default)").group(group);
    app.add_switch("--no-pre-tune", c.no_pre_tune, "do not").group(group);
    app.add_switch("--post-tune", c.post_tune, "sweep them again after minimisation (the default)").group(group);
    app.add_switch("--no-post-tune", c.no_post_tune, "do not").group(group);
    app.add_integer("--tune-max", o.tune_max, 1, 100000000,
                "largest sweep done exhaustively; bigger spaces are sampled with N points")
        .group(group);
    app.add_text("--tune-shard", c.tune_shard, "K/N",
             "with --generations 0: sweep only part K of N of the parameter space (every Nth point), for an exhaustive "
             "sweep too big for one sitting")
        .group(group);
    app.add_integer("--workers", c.workers, 1, 4096,
                "anneal: evaluations kept in flight, each worker with its own evaluator (a run's draws depend on it: "
                "give it to repeat a run on another machine; a resumed run keeps the number it started with)",
                "1 for cuda, one GPU; the machine's cores otherwise")
        .group(group);
    app.add_strategy_options(o.strategy_settings, group);
    app.add_switch("--resume", c.resume,
               "continue the run in DIR from its checkpoint (same kernel and options; --generations and --time-limit may change)")
        .group(group);
    app.add_switch("--restart", c.restart, "discard a run already in DIR and start again").group(group);
    app.add_switch("--quiet", c.quiet, "print only the summary").group(group);
    app.add_integer("--target-architectures", c.target_architectures, 1, 1000,
                    "how many GPU architectures the program compiles the kernel file for (the CMake module passes its "
                    "target's count): with two or more, a #define that host code of the file reads is kept at the "
                    "file's value, since the host pass sees one value for every architecture and the build refuses a "
                    "variant that changes it (docs/cmake.md, \"Several architectures in one binary\")")
        .group(group)
        .hidden();
}

// The PTX --ptx-edits draws on: the genome's source part's, as the cuda evaluator's builder makes
// it to edit (ptx_as_evaluated: nvcc's front end's, NVRTC's where nvcc cannot), with the options
// and folders it compiles variants with, for `arch`, which must be the evaluator's (the edits'
// instruction indexes are those of the PTX its builder edits). Null when neither compiles the file:
// search then draws source edits only.
PtxOf evaluated_ptx_of(const Grammar& grammar, const CudaEvaluatorOptions& cuda, std::string arch) {
    return [&grammar, include_dirs = cuda.include_dirs, options = cuda.compile_options, nvcc = cuda.nvcc,
            arch = std::move(arch)](const Genome& part) -> std::shared_ptr<const PtxModule> {
        const Variant variant = make_variant(part, grammar);
        DeviceCompileRequest request;
        request.source = variant.source;
        request.options = options;
        request.options.insert(request.options.end(), variant.compile_options.begin(), variant.compile_options.end());
        request.include_dirs = include_dirs;
        request.arch = arch;
        try {
            const DeviceCompileResult r = ptx_as_evaluated(request, nvcc);
            if (!r.ok) return nullptr;
            return std::make_shared<const PtxModule>(parse_ptx(r.ptx, "variant.ptx"));
        } catch (const Error&) {
            return nullptr;
        }
    };
}

// The kernel's grammar; for a program compiling several architectures, with every #define gene
// that the file's host code reads kept at the file's value (grammar/macro_reach.hpp), each said once.
Grammar search_grammar(const KernelSettings& kernel, int target_architectures, bool quiet) {
    const SourceFile source = read_source_file(kernel_path_from(kernel));
    Grammar grammar = build_grammar(source, grammar_options_from(kernel));
    if (target_architectures < 2) return grammar;
    const std::vector<HostReadGene> kept = host_read_genes(grammar, source);
    if (!quiet)
        for (const HostReadGene& gene : kept)
            std::cout << "note: " << gene.name << " is read by host code at " << source.name << ":" << gene.line
                      << " and the target compiles " << target_architectures << " architectures: kept at " << gene.value
                      << "\n";
    return with_genes_kept_at_default(std::move(grammar), kept);
}

bool on_off(const CommandLine& app, bool on, bool off, const std::string& on_name, const std::string& off_name, bool fallback) {
    app.at_most_one_of(on_name, off_name);
    return on ? true : off ? false : fallback;
}

int run_evolve(const std::vector<std::string>& arguments) {
    // --time-limit counts from here: reading the cases, starting workers and the oracle gate are
    // part of what a build waits for.
    const auto command_start = std::chrono::steady_clock::now();
    EvolveCommandLine c;
    CommandLine app(kUsage, kAbout, kExamples);
    declare(app, c);
    if (!app.parse(arguments)) return kExitOk;

    EvolveOptions options = c.options;
    // --time-limit alone is the budget: the search runs until it is spent (or stagnates).
    if (app.given("--time-limit") && options.time_limit_s > 0 && !app.given("--generations")) {
        options.generations = kGenerationsUntilTimeLimit;
        if (!app.given("--stagnation")) options.stagnation = kDefaultStagnation;
    }
    if (!c.tune_shard.empty()) parse_tune_shard(c.tune_shard, options);
    options.pre_tune = on_off(app, c.pre_tune, c.no_pre_tune, "--pre-tune", "--no-pre-tune", true);
    options.post_tune = on_off(app, c.post_tune, c.no_post_tune, "--post-tune", "--no-post-tune", true);
    options.minimise = !c.no_minimise;
    options.overlap_gate = !c.no_gate_overlap;
    options.prescreen_gate = !c.no_gate_prescreen;
    app.at_most_one_of("--resume", "--restart");
    const OutMode mode = c.resume ? OutMode::Resume : c.restart ? OutMode::Restart : OutMode::Fresh;
    const std::string out = c.out;
    const std::string evaluator_name = c.evaluator.name;
    const std::string kernel_path = kernel_path_from(c.kernel);  // a missing KERNEL.cu is named before the evaluator's options are read
    {
        // best.cu (and the rest) would be written over the kernel being evolved.
        OutputGuard guard;
        guard.keep(kernel_path, "the kernel file");
        for (const char* name : kOutFolderNames)
            guard.check("--out " + out + ":", std::filesystem::path(out) / name, std::string("the run's ") + name,
                        std::string("evolve writes its ") + name + " there: choose another --out folder");
    }
    check_evolve_options(options);
    const EvaluatorSettings evaluator_options = evaluator_settings(app, c.evaluator, c.kernel);

    const Grammar grammar = search_grammar(c.kernel, c.target_architectures, c.quiet);
    SearchHistoryOptions history_options;
    history_options.workers = c.workers > 0 ? static_cast<std::size_t>(c.workers) : default_workers(evaluator_name);
    std::unique_ptr<Evaluator> evaluator = make_evaluator(evaluator_name, grammar, evaluator_options);
    // --gpus: anneal gets --workers slots on every GPU, each further one an evaluator of its GPU
    // (the first is the run's, whose small batches run on the first GPU).
    auto* gpus = dynamic_cast<MultiGpuEvaluator*>(evaluator.get());
    if (gpus && options.strategy == "anneal") history_options.workers *= gpus->ordinals().size();
    SearchHistory::EvaluatorMaker make_worker = [&, next = std::size_t{1}]() mutable -> std::unique_ptr<Evaluator> {
        if (!gpus) return make_evaluator(evaluator_name, grammar, evaluator_options);
        const std::vector<int> ordinals = gpus->ordinals();
        return gpus->make_worker(ordinals[next++ % ordinals.size()]);
    };

    // Held until the run ends, so a second evolve on the same --out is refused instead of mixing
    // two runs in one folder. A --resume of a folder that does not exist gets its error below.
    std::optional<FolderLock> lock;
    if (mode != OutMode::Resume || std::filesystem::is_directory(out)) {
        lock.emplace(out, "gi-tool evolve --out " + out);
        remove_abandoned_temporaries(out);
    }
    // The database of every individual, the fitness cache and anneal's workers (run/search_history.hpp).
    SearchHistory session(
        grammar, *evaluator, std::move(make_worker), options, out,
        mode, history_options);
    EvolveHooks hooks;
    std::function<PtxDrawerStats()> drawer_stats;
    if (c.ptx_edits > 0) {
        // The cuda evaluator's builder alone compiles PTX edits (cuda/variant_builder_ptx.cpp).
        if (evaluator_name != "cuda")
            throw UsageError("--ptx-edits needs --evaluator cuda: the " + evaluator_name +
                             " evaluator does not build variants from their PTX");
        const CudaEvaluatorOptions cuda = cuda_options_for(evaluator_options);
        if (cuda.arch.empty())
            throw UsageError("--ptx-edits needs --arch (e.g. --arch 90): the PTX its edits are drawn on must be the one "
                             "the evaluator builds variants from");
        const std::string arch = cuda.arch.rfind("sm_", 0) == 0 ? cuda.arch : "sm_" + cuda.arch;
        PtxEditDrawer drawer = ptx_edit_drawer(grammar_edit_drawer(grammar), evaluated_ptx_of(grammar, cuda, arch),
                                               evaluator_options.function.substr(0, evaluator_options.function.find('<')),
                                               c.ptx_edits);
        hooks.draw = std::move(drawer.draw);
        hooks.prefetch = std::move(drawer.prefetch);
        drawer_stats = std::move(drawer.stats);
    }
    hooks.clock = [command_start] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - command_start).count();
    };
    // At a terminal (a build in Ninja's console pool) the generation lines replace each other on
    // one line; elsewhere (CI logs, files) each is a line of its own.
    if (!c.quiet) {
        const bool terminal = ::isatty(STDOUT_FILENO) == 1;
        hooks.progress = [terminal, open_line = false](const std::string& line) mutable {
            const bool generation = line.rfind("generation ", 0) == 0;
            if (terminal && generation) {
                std::cout << "\r\033[K" << line << std::flush;
                open_line = true;
                return;
            }
            if (open_line) std::cout << "\n";
            open_line = false;
            std::cout << line << std::endl;
        };
    }
    const RunRecord record = evolve(grammar, session.evaluator(), options, out, mode, session.hooks(hooks));
    session.finish(record);
    std::cout << "\n" << run_summary(record);
    for (const std::string& note : evaluator->report().notes) std::cout << "note: " << note << "\n";
    if (drawer_stats) std::cout << "note: " << describe(drawer_stats(), c.ptx_edits) << "\n";
    std::cout << "outputs in " << out << ": best.cu best.genome run.xml pareto.xml history.sqlite\n";
    return kExitOk;
}

const CommandRegistrar registrar({"evolve", "evolve a faster kernel (tune, search, minimise, tune)", run_evolve});

}  // namespace
}  // namespace gi::cli
