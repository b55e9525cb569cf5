// `gi-tool evolve`: pre-tune, search, minimise and post-tune one kernel; writes the best variant,
// its genome, the run record and a checkpoint to --out.
#include <algorithm>
#include <filesystem>
#include <unistd.h>

#include <iostream>
#include <limits>
#include <optional>
#include <stdexcept>

#include "cli/args.hpp"
#include "cli/command.hpp"
#include "cli/kernel_args.hpp"
#include "evaluate/evaluator_factory.hpp"
#include "run/search_history.hpp"
#include "util/atomic_file.hpp"
#include "util/folder_lock.hpp"
#include "run/evolve.hpp"
#include "search/strategy.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {

std::string help_text() {
    std::string evaluators, evaluator_options, strategies;
    for (const EvaluatorKind& kind : evaluator_kinds()) {
        evaluators += "                            " + kind.name + ": " + kind.summary + "\n";
        evaluator_options += kind.options_help;
    }
    // The default first, then the order, then anything registered later.
    std::vector<std::string> names{"gp", "nsga2", "anneal"};
    for (const std::string& name : strategy_names())
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    for (const std::string& name : names) strategies += (strategies.empty() ? "" : "|") + name;
    return "usage: gi-tool evolve KERNEL.cu --function NAME [kernel options] --evaluator NAME --out DIR\n"
           "                      [--generations N] [--population N] [--seed S] [--time-limit S] [--resume]\n"
           "  Improves a CUDA kernel by genetic improvement (Langdon's method): tunes its declared\n"
           "  parameters, evolves patches of its own lines, removes the edits that do not matter, tunes\n"
           "  again, and writes to DIR: best.cu (the improved kernel), best.genome (its patch), run.xml\n"
           "  (the run record) and checkpoint.xml (to --resume an interrupted run). Every evaluated\n"
           "  individual goes into history.sqlite as it completes (see gi-tool history); pareto.xml holds\n"
           "  the (time, error) trade-off and the member --max-error chooses.\n\n" +
           kernel_options_help() +
           "\nsearch options:\n"
           "  --evaluator NAME          how variants are measured:\n" + evaluators +
           "  --out DIR                 output directory (created if missing)\n"
           "  --strategy " + strategies + std::string(strategies.size() < 15 ? 15 - strategies.size() : 1, ' ') +
           "search strategy (default gp: Langdon's generational GP; nsga2: GEVO's\n"
           "                            multi-objective search over time and error; anneal: Paraiso's\n"
           "                            asynchronous genetic annealing)\n"
           "  --generations N           generations to run (default 50)\n"
           "  --population N            individuals per generation (default 100)\n"
           "  --seed S                  random seed; the same seed and inputs give the same run (default 1)\n"
           "  --time-limit S            wall-time budget in seconds for pre-tuning and search; the search\n"
           "                            stops after the generation in progress (default: --generations alone)\n"
           "  --max-error E             error a variant may have and still be accepted (default 0: exact)\n"
           "  --noise-k K               a variant must beat the original by K x the combined timing spread\n"
           "                            (default 1)\n"
           "  --minimise-k K            minimisation keeps an edit only when removing it costs more than\n"
           "                            K x noise (default 3)\n"
           "  --minimise-repeats N      evaluations per minimisation comparison (default 3)\n"
           "  --no-minimise             keep the best genome as evolved\n"
           "  --start GENOME            start from this genome instead of the original kernel (e.g. the\n"
           "                            winner of an exhaustive parameter sweep, or a cache entry's genome);\n"
           "                            pre-tuning then sweeps around it\n"
           "  --pre-tune|--no-pre-tune  sweep the --param/--flag genes before search (default on)\n"
           "  --post-tune|--no-post-tune  sweep them again after minimisation (default on)\n"
           "  --tune-max N              largest sweep done exhaustively; bigger spaces are sampled with N\n"
           "                            points (default 256)\n"
           "  --tune-shard K/N          with --generations 0: sweep only part K of N of the parameter space\n"
           "                            (every Nth point), for an exhaustive sweep too big for one sitting\n"
           "  --workers N               anneal: evaluations kept in flight, each worker with its own evaluator\n"
           "                            (default: 1 for cuda, one GPU; the machine's cores otherwise)\n"
           "  --anneal-batch N          anneal: children per evaluator call (default 1; a batch lets the cuda\n"
           "                            evaluator compile them in parallel)\n"
           "  --resume                  continue the run in DIR from its checkpoint (same kernel and options;\n"
           "                            --generations and --time-limit may change)\n"
           "  --restart                 discard a run already in DIR and start again\n"
           "  --quiet                   print only the summary\n"
           "\nevaluator options:\n" + evaluator_options +
           "\nexample:\n"
           "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel \\\n"
           "      --param BLOCK_W=32,64,128 --param ROWS_PER_THREAD=1..48 \\\n"
           "      --evaluator compile-only --arch sm_90 --generations 5 --population 20 --seed 7 --out run1\n"
           "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel --evaluator fake \\\n"
           "      --fake seed=3 --out run2 --time-limit 60\n"
           "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64,128 \\\n"
           "      --evaluator cuda --cases cases/ --held-out held-out/ --time-limit 480 --out run3\n"
           "  gi-tool evolve kernels/stereo/stereo.cu --function stereo_kernel --evaluator fake \\\n"
           "      --strategy anneal --workers 4 --generations 10 --out run4\n"
           "\nexit status: 0 ok, 1 failure, 2 usage error\n";
}

bool on_off(const Args& args, const std::string& on, const std::string& off, bool fallback) {
    if (args.has(on) && args.has(off)) throw UsageError("give only one of " + on + " and " + off);
    if (args.has(on)) return true;
    if (args.has(off)) return false;
    return fallback;
}

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

int run_evolve(const std::vector<std::string>& arguments) {
    std::vector<std::string> value_options = kernel_value_options();
    for (const char* option : {"--evaluator", "--out", "--strategy", "--generations", "--population", "--seed",
                               "--time-limit", "--max-error", "--noise-k", "--minimise-k", "--minimise-repeats",
                               "--tune-max", "--tune-shard", "--workers", "--anneal-batch", "--start"})
        value_options.push_back(option);
    for (const std::string& option : evaluator_value_options()) value_options.push_back(option);
    std::vector<std::string> switch_options = kernel_switch_options();
    for (const char* option : {"--help", "--resume", "--restart", "--pre-tune", "--no-pre-tune", "--post-tune",
                               "--no-post-tune", "--no-minimise", "--quiet"})
        switch_options.push_back(option);
    for (const std::string& option : evaluator_switch_options()) switch_options.push_back(option);

    const Args args(arguments, value_options, switch_options);
    if (args.has("--help")) {
        std::cout << help_text();
        return kExitOk;
    }

    EvolveOptions options;
    options.strategy = args.value("--strategy").value_or("gp");
    options.generations = static_cast<int>(args.integer("--generations", 50, 0, 1000000));
    options.population = static_cast<std::size_t>(args.integer("--population", 100, 2, 1000000));
    options.seed = static_cast<std::uint64_t>(args.integer("--seed", 1, 0, std::numeric_limits<long long>::max()));
    options.time_limit_s = args.number("--time-limit", 0, 0, 1e9);
    options.acceptance.max_error = args.number("--max-error", 0, 0, 1e300);
    options.acceptance.noise_k = args.number("--noise-k", 1, 0, 1e6);
    options.minimise_options.k = args.number("--minimise-k", 3, 0, 1e6);
    options.minimise_options.repeats = static_cast<int>(args.integer("--minimise-repeats", 3, 1, 1000));
    options.tune_max = static_cast<int>(args.integer("--tune-max", 256, 1, 100000000));
    if (const auto shard = args.value("--tune-shard")) parse_tune_shard(*shard, options);
    options.pre_tune = on_off(args, "--pre-tune", "--no-pre-tune", true);
    options.start_genome = args.value("--start").value_or("");
    options.post_tune = on_off(args, "--post-tune", "--no-post-tune", true);
    options.minimise = !args.has("--no-minimise");
    if (args.has("--resume") && args.has("--restart")) throw UsageError("give only one of --resume and --restart");
    const OutMode mode = args.has("--resume") ? OutMode::Resume : args.has("--restart") ? OutMode::Restart : OutMode::Fresh;
    const std::string out = args.required("--out");
    const std::string evaluator_name = args.required("--evaluator");
    check_evolve_options(options);

    EvaluatorOptions evaluator_options;
    for (const std::string& option : evaluator_value_options())
        if (args.has(option)) evaluator_options.values[option] = args.values(option);
    for (const std::string& option : evaluator_switch_options())
        if (args.has(option)) evaluator_options.switches.insert(option);
    evaluator_options.kernel_path = kernel_path_from(args);
    if (args.has("--function")) evaluator_options.function = args.values("--function").front();
    evaluator_options.block_size = args.value("--block-size").value_or("");
    const CompileSettings compile_settings = compile_settings_from(args);
    evaluator_options.include_dirs = compile_settings.include_dirs;
    evaluator_options.compile_options = compile_settings.options;

    const Grammar grammar = grammar_from(args);
    SearchHistoryOptions history_options;
    history_options.workers =
        static_cast<std::size_t>(args.integer("--workers", static_cast<long long>(default_workers(evaluator_name)), 1, 4096));
    history_options.anneal_batch = static_cast<std::size_t>(args.integer("--anneal-batch", 1, 1, 100000));
    std::unique_ptr<Evaluator> evaluator = make_evaluator(evaluator_name, grammar, evaluator_options);

    // Held until the run ends, so a second evolve on the same --out is refused instead of mixing
    // two runs in one folder. A --resume of a folder that does not exist gets its error below.
    std::optional<FolderLock> lock;
    if (mode != OutMode::Resume || std::filesystem::is_directory(out)) {
        lock.emplace(out, "gi-tool evolve --out " + out);
        remove_abandoned_temporaries(out);
    }
    // The database of every individual, the fitness cache and anneal's workers (run/search_history.hpp).
    SearchHistory session(
        grammar, *evaluator, [&] { return make_evaluator(evaluator_name, grammar, evaluator_options); }, options, out,
        mode, history_options);
    EvolveHooks hooks;
    // At a terminal (a build in Ninja's console pool) the generation lines replace each other on
    // one line; elsewhere (CI logs, files) each is a line of its own.
    if (!args.has("--quiet")) {
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
    for (const std::string& note : evaluator->run_notes()) std::cout << "note: " << note << "\n";
    std::cout << "outputs in " << out << ": best.cu best.genome run.xml pareto.xml history.sqlite\n";
    return kExitOk;
}

const CommandRegistrar registrar({"evolve", "evolve a faster kernel (tune, search, minimise, tune)", run_evolve});

}  // namespace
}  // namespace gi::cli
