#include "evaluate/evaluator_factory.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>

#include "evaluate/compile_only_evaluator.hpp"
#include "evaluate/cuda_evaluator.hpp"
#include "evaluate/cuda_options.hpp"
#include "evaluate/fake_evaluator.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

long long integer_option(const EvaluatorOptions& options, const std::string& option, long long fallback,
                         long long min, long long max) {
    const std::optional<std::string> text = options.last(option);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(text->c_str(), &end, 10);
    if (text->empty() || *end != '\0' || errno == ERANGE || value < min || value > max)
        throw UsageError("option " + option + " needs an integer from " + std::to_string(min) + " to " +
                         std::to_string(max) + ", got '" + *text + "'");
    return value;
}

std::unique_ptr<Evaluator> make_fake(const Grammar& grammar, const EvaluatorOptions& options) {
    FakeLandscapeOptions landscape;
    if (auto it = options.values.find("--fake"); it != options.values.end())
        for (const std::string& setting : it->second) apply_fake_setting(landscape, setting, "--fake");
    return std::make_unique<FakeEvaluator>(grammar, landscape);
}

std::unique_ptr<Evaluator> make_compile_only(const Grammar& grammar, const EvaluatorOptions& options) {
    CompileOnlyOptions compile;
    compile.nvcc.nvcc = options.last("--nvcc").value_or("");
    compile.nvcc.arch = options.last("--arch").value_or(compile.nvcc.arch);
    if (auto it = options.values.find("--nvcc-flag"); it != options.values.end()) compile.nvcc.flags = it->second;
    compile.nvcc.timeout = std::chrono::seconds(integer_option(options, "--compile-timeout", 120, 1, 3600));
    compile.jobs = static_cast<int>(integer_option(options, "--jobs", compile.jobs, 1, 256));
    // The kernel's own #includes are found next to it, as they would be in the user's build.
    if (!options.kernel_path.empty()) {
        const std::filesystem::path folder = std::filesystem::path(options.kernel_path).parent_path();
        compile.nvcc.include_dirs.push_back(folder.empty() ? "." : folder.string());
    }
    compile.nvcc.include_dirs.insert(compile.nvcc.include_dirs.end(), options.include_dirs.begin(), options.include_dirs.end());
    compile.nvcc.flags.insert(compile.nvcc.flags.end(), options.compile_options.begin(), options.compile_options.end());
    auto evaluator = std::make_unique<CompileOnlyEvaluator>(std::move(compile));
    // A kernel that does not compile as given (a missing -I, say) would make every variant a
    // compile error: a run reporting "compiled: 0%" and succeeding. It is the set-up's error.
    require_original_compiles(*evaluator, make_variant(Genome{}, grammar), options.kernel_path.empty() ? grammar.source_path
                                                                                                        : options.kernel_path);
    return evaluator;
}

std::unique_ptr<Evaluator> make_cuda(const Grammar& grammar, const EvaluatorOptions& options) {
    CudaEvaluatorOptions o = cuda_evaluator_options(options.values, options.kernel_path, options.switches, options.block_size);
    if (o.function.empty()) o.function = options.function;
    o.include_dirs.insert(o.include_dirs.end(), options.include_dirs.begin(), options.include_dirs.end());
    o.compile_options = options.compile_options;
    return std::make_unique<CudaEvaluator>(grammar, std::move(o));
}

const std::vector<std::string> kRegistrationOptions = {"--grid", "--tolerance"};

struct Entry {
    EvaluatorKind kind;
    std::unique_ptr<Evaluator> (*make)(const Grammar&, const EvaluatorOptions&);
};

// The table of evaluators: adding one is one entry here.
const std::vector<Entry>& entries() {
    static const std::vector<Entry> table{
        {{"fake", "a deterministic synthetic landscape (tests, dry runs; no compiler, no GPU)",
          "  --fake NAME=VALUE         fake landscape setting, repeatable: seed=N (default 1), cases=N (8),\n"
          "                            noise=R relative timing spread (0.01), random=0|1 (1: seeded effects\n"
          "                            for every item), delay-ms=N (sleep per batch)\n",
          {"--fake"}, {}},
         make_fake},
        {{"compile-only", "compiles each variant with nvcc; no GPU, no timings (reports the share that compiles)",
          "  --arch sm_XX              compile-only: architecture to compile for (default sm_90)\n"
          "  --nvcc PATH               compile-only: the nvcc to run (default: PATH, then /usr/local/cuda)\n"
          "  --nvcc-flag WORD          compile-only: extra nvcc word, repeatable (e.g. -std=c++17)\n"
          "  --jobs N                  compile-only: compilers running at once (default 2)\n"
          "  --compile-timeout S       compile-only: seconds before a compile is abandoned (default 120)\n",
          {"--arch", "--nvcc", "--nvcc-flag", "--jobs", "--compile-timeout"}, {}},
         make_compile_only},
        {{"cuda", "replays recorded launches on a GPU, checks outputs and times each variant",
          cuda_options_help(), cuda_value_options(), cuda_switch_options()},
         make_cuda},
    };
    return table;
}

}  // namespace

std::optional<std::string> EvaluatorOptions::last(const std::string& option) const {
    auto it = values.find(option);
    if (it == values.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

const std::vector<EvaluatorKind>& evaluator_kinds() {
    static const std::vector<EvaluatorKind> kinds = [] {
        std::vector<EvaluatorKind> list;
        for (const Entry& entry : entries()) list.push_back(entry.kind);
        return list;
    }();
    return kinds;
}

std::vector<std::string> evaluator_value_options() {
    std::vector<std::string> options;
    for (const EvaluatorKind& kind : evaluator_kinds())
        for (const std::string& option : kind.value_options)
            if (std::find(options.begin(), options.end(), option) == options.end()) options.push_back(option);
    return options;
}

std::vector<std::string> evaluator_switch_options() {
    std::vector<std::string> options;
    for (const EvaluatorKind& kind : evaluator_kinds())
        for (const std::string& option : kind.switch_options)
            if (std::find(options.begin(), options.end(), option) == options.end()) options.push_back(option);
    return options;
}

std::unique_ptr<Evaluator> make_evaluator(const std::string& name, const Grammar& grammar,
                                          const EvaluatorOptions& options) {
    const Entry* found = nullptr;
    std::string known;
    for (const Entry& entry : entries()) {
        if (entry.kind.name == name) found = &entry;
        known += (known.empty() ? "" : ", ") + entry.kind.name;
    }
    if (found == nullptr) throw UsageError("--evaluator: unknown evaluator '" + name + "' (known: " + known + ")");
    // An option meant for another evaluator is almost always a mistake worth hearing about. The
    // registration's own options are not: they describe the kernel (a build's .registration file
    // holds them), and an evaluator that does not launch it has no use for them.
    auto reads = [&](const std::string& option) {
        if (std::find(kRegistrationOptions.begin(), kRegistrationOptions.end(), option) != kRegistrationOptions.end())
            return true;
        const auto& v = found->kind.value_options;
        const auto& s = found->kind.switch_options;
        return std::find(v.begin(), v.end(), option) != v.end() || std::find(s.begin(), s.end(), option) != s.end();
    };
    for (const auto& [option, values] : options.values)
        if (!reads(option)) throw UsageError("option " + option + " does not apply to --evaluator " + name);
    for (const std::string& option : options.switches)
        if (!reads(option)) throw UsageError("option " + option + " does not apply to --evaluator " + name);
    return found->make(grammar, options);
}

}  // namespace gi
