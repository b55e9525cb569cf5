// `gi-tool mutants`: how often does a random single edit of a kernel still compile? Measures the
// grammar's and the scope rules' quality (the seeds saw 96%), per kind of edit, with the failures'
// first errors so a person can see which rule let a bad edit through.
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "util/format.hpp"
#include "evaluate/compile_only_evaluator.hpp"
#include "genome/random_edit.hpp"
#include "util/error.hpp"
#include "process/process.hpp"
#include "variant/apply.hpp"

namespace gi::cli {
namespace {

const char* const kUsage = "usage: gi-tool mutants KERNEL.cu [kernel options] --count N --seed S [--arch ARCH] [options]\n";
const char* const kAbout =
    "  Draws N distinct random single-edit mutants of the kernel (legal, scope-safe edits only;\n"
    "  code the preprocessor removes is never touched), compiles each with nvcc and prints the\n"
    "  share that compiles, per kind of edit, and the first error lines of those that do not.\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool mutants kernels/stereo/stereo.cu --function stereo_kernel --count 200 --seed 7 \\\n"
    "      --arch sm_90 --jobs 8 --min-rate 90\n";

std::string percent(int part, int whole) { return fixed(whole == 0 ? 0.0 : 100.0 * part / whole, 1) + "%"; }

// Up to `count` distinct edits; all of them when the space is no larger.
std::vector<Edit> draw_distinct(const EditSpace& space, std::size_t count, EditWeighting weighting, Rng& rng) {
    if (count >= space.size()) return space.enumerate();
    std::vector<Edit> edits;
    std::set<std::string> seen;
    // Heavily weighted spaces repeat draws; give up after many repeats rather than loop forever.
    for (std::size_t attempts = 0; edits.size() < count && attempts < 100 * count; ++attempts) {
        const Edit edit = *space.draw(rng, weighting);
        if (seen.insert(edit_to_text(edit)).second) edits.push_back(edit);
    }
    return edits;
}

EditWeighting weighting_from(const std::string& text) {
    if (text == "ops") return EditWeighting::OpsEqual;
    if (text == "uniform") return EditWeighting::UniformOverEdits;
    throw UsageError("--weighting must be 'ops' or 'uniform', got '" + text + "'");
}

int run_mutants(const std::vector<std::string>& raw) {
    KernelSettings kernel;
    long long count = 100, show_failures = 20, timeout_s = 120;
    std::uint64_t seed = 1;
    std::string weighting = "ops";
    std::vector<std::string> includes;
    double min_rate = 0;
    CompileOnlyOptions options;
    CommandLine app(kUsage, kAbout, kExamples);
    app.add_integer("--count", count, 1, 1000000, "mutants to draw (all legal edits if there are fewer)");
    app.add_integer("--seed", seed, 0, INT64_MAX, "random seed; the same seed draws the same mutants");
    app.add_architecture("--arch", options.nvcc.arch, "GPU architecture to compile for").shown_default(options.nvcc.arch);
    app.add_integer("--jobs", options.jobs, 1, 256, "compilers to run at once");
    app.add_text("--weighting", weighting, "W",
             "ops: delete/replace/insert equally likely, as in the seeds; uniform: every legal edit equally likely")
        .shown_default(weighting);
    app.add_integer("--timeout", timeout_s, 1, 86400, "per-compile limit in seconds");
    app.add_text("--nvcc", options.nvcc.nvcc, "PATH", "the compiler (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)");
    app.add_list("--nvcc-flag", options.nvcc.flags, "FLAG", "extra nvcc word, repeatable (e.g. --nvcc-flag=-std=c++17)");
    app.add_list("--include", includes, "DIR", "extra -I folder, repeatable (the kernel's own folder is always one)");
    app.add_switch("--object", options.nvcc.object, "compile with -c (host and device) instead of -cubin (device only)");
    app.add_integer("--show-failures", show_failures, 0, 1000000, "failures to list");
    app.add_number("--min-rate", min_rate, 0, 100, "exit 1 when fewer than PERCENT% compile (for CI)", "-").value_name("PERCENT");
    app.add_kernel_options(kernel);
    if (!app.parse(raw)) return kExitOk;
    const EditWeighting edit_weighting = weighting_from(weighting);
    check_nvcc_arch(options.nvcc.arch);
    options.nvcc.timeout = std::chrono::milliseconds(timeout_s * 1000);

    const Grammar grammar = grammar_from(kernel);
    options.nvcc.include_dirs.push_back(kernel_include_dir(grammar.source_path));
    for (const std::string& dir : includes) options.nvcc.include_dirs.push_back(dir);
    const CompileSettings settings = compile_settings_from(kernel);
    options.nvcc.include_dirs.insert(options.nvcc.include_dirs.end(), settings.include_dirs.begin(), settings.include_dirs.end());
    options.nvcc.flags.insert(options.nvcc.flags.end(), settings.options.begin(), settings.options.end());

    const EditSpace space(grammar, macros_for(Genome{}, grammar));
    if (space.empty())
        throw Error(grammar.source_path + ": the kernel offers no legal edit (no statements, if conditions, loops " +
                    "or pragma slots in live code; check --function)");
    Rng rng(seed);
    const std::vector<Edit> edits = draw_distinct(space, static_cast<std::size_t>(count), edit_weighting, rng);

    CompileOnlyEvaluator evaluator(options);
    require_original_compiles(evaluator, make_variant(Genome{}, grammar), grammar.source_path);

    std::vector<Variant> variants;
    for (const Edit& edit : edits) variants.push_back(make_variant(Genome{{}, {edit}}, grammar));
    std::cout << grammar.source_path << ": " << space.size() << " legal single edits; compiling " << variants.size()
              << " distinct mutants (seed " << seed << ", weighting "
              << weighting << ") with "
              << command_line_text({options.nvcc.nvcc.empty() ? "nvcc" : options.nvcc.nvcc, "-arch=" + options.nvcc.arch,
                                    options.nvcc.object ? "-c" : "-cubin"})
              << ", " << options.jobs << " at a time\n";

    // Batches of a few per job keep a progress line going on long runs.
    std::vector<EvalResult> results;
    const std::size_t batch_size = static_cast<std::size_t>(options.jobs) * 4;
    for (std::size_t first = 0; first < variants.size(); first += batch_size) {
        const std::vector<Variant> batch(variants.begin() + static_cast<std::ptrdiff_t>(first),
                                         variants.begin() + static_cast<std::ptrdiff_t>(std::min(first + batch_size, variants.size())));
        for (EvalResult& r : evaluator.evaluate(batch, 0).results) results.push_back(std::move(r));
        std::cerr << "\rcompiled " << results.size() << "/" << variants.size() << std::flush;
    }
    std::cerr << "\n";

    std::map<std::string, std::pair<int, int>> by_category;  // compiled, drawn
    int compiled = 0;
    for (std::size_t i = 0; i < edits.size(); ++i) {
        auto& [ok, drawn] = by_category[edit_category(edits[i], grammar)];
        ++drawn;
        if (results[i].status == EvalStatus::Ok) {
            ++ok;
            ++compiled;
        }
    }
    const int total = static_cast<int>(edits.size());
    std::cout << "compiled: " << compiled << "/" << total << " (" << percent(compiled, total) << ")\n";
    for (const std::string& category : edit_categories()) {
        const auto it = by_category.find(category);
        if (it == by_category.end()) continue;
        std::cout << fmt::format("  {:<9}{}/{} ({})\n", category, it->second.first, it->second.second,
                                 percent(it->second.first, it->second.second));
    }
    long long listed = 0;
    for (std::size_t i = 0; i < edits.size(); ++i) {
        if (results[i].status == EvalStatus::Ok) continue;
        if (listed == 0) std::cout << "failures (variant.cu line numbers are the kernel's plus one):\n";
        if (listed++ >= show_failures) continue;
        std::cout << "  " << edit_to_text(edits[i]) << "  [" << to_string(results[i].status) << "]\n";
        std::string detail = results[i].detail;
        for (std::size_t pos = 0; (pos = detail.find('\n', pos)) != std::string::npos; pos += 5) detail.replace(pos, 1, "\n    ");
        std::cout << "    " << detail << "\n";
    }
    if (listed > show_failures) std::cout << "  ... and " << listed - show_failures << " more\n";
    if (total > 0 && 100.0 * compiled / total < min_rate) {
        std::cerr << "gi-tool mutants: " << percent(compiled, total) << " compiled, below --min-rate " << min_rate << "%\n";
        return kExitFailure;
    }
    return kExitOk;
}

const CommandRegistrar registrar({"mutants", "compile random single-edit mutants and report how many compile",
                                  run_mutants});

}  // namespace
}  // namespace gi::cli
