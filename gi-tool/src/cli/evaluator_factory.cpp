#include "cli/evaluator_factory.hpp"

#include <filesystem>

#include "util/error.hpp"

namespace gi {
namespace {

// The folder of the kernel file, where its own #includes are found, as in the user's build.
std::string kernel_folder(const std::string& kernel_path) {
    const std::filesystem::path folder = std::filesystem::path(kernel_path).parent_path();
    return folder.empty() ? "." : folder.string();
}

std::unique_ptr<Evaluator> make_fake(const Grammar& grammar, const EvaluatorSettings& settings) {
    return std::make_unique<FakeEvaluator>(grammar, settings.fake);
}

std::unique_ptr<Evaluator> make_compile_only(const Grammar& grammar, const EvaluatorSettings& settings) {
    CompileOnlyOptions compile = settings.compile_only;
    if (!settings.kernel_path.empty()) compile.nvcc.include_dirs.push_back(kernel_folder(settings.kernel_path));
    compile.nvcc.include_dirs.insert(compile.nvcc.include_dirs.end(), settings.include_dirs.begin(), settings.include_dirs.end());
    compile.nvcc.flags.insert(compile.nvcc.flags.end(), settings.compile_options.begin(), settings.compile_options.end());
    auto evaluator = std::make_unique<CompileOnlyEvaluator>(std::move(compile));
    // A kernel that does not compile as given (a missing -I, say) would make every variant a
    // compile error: a run reporting "compiled: 0%" and succeeding. It is the set-up's error.
    require_original_compiles(*evaluator, make_variant(Genome{}, grammar),
                              settings.kernel_path.empty() ? grammar.source_path : settings.kernel_path);
    return evaluator;
}

std::unique_ptr<Evaluator> make_cuda(const Grammar& grammar, const EvaluatorSettings& settings) {
    CudaEvaluatorOptions options = cuda_options_for(settings);
    // --gpus 1 (GPU 0) is the evaluator of one GPU, exactly as without --gpus.
    if (options.gpus.empty()) return std::make_unique<CudaEvaluator>(grammar, std::move(options));
    GpuSelection gpus = parse_gpu_selection(options.gpus, "--gpus");
    if (gpus.just_the_default()) return std::make_unique<CudaEvaluator>(grammar, std::move(options));
    const bool mixed = options.gpus_mixed;
    return std::make_unique<MultiGpuEvaluator>(grammar, std::move(options), std::move(gpus), mixed);
}

struct Entry {
    EvaluatorKind kind;
    std::unique_ptr<Evaluator> (*make)(const Grammar&, const EvaluatorSettings&);
};

// The table of evaluators: adding one is one entry here (and its options in cli/evaluator_options.cpp).
const std::vector<Entry>& entries() {
    static const std::vector<Entry> table{
        {{"fake", "a deterministic synthetic landscape (tests, dry runs; no compiler, no GPU)"}, make_fake},
        {{"compile-only", "compiles each variant with nvcc; no GPU, no timings (reports the share that compiles)"},
         make_compile_only},
        {{"cuda", "replays recorded launches on a GPU, checks outputs and times each variant"}, make_cuda},
    };
    return table;
}

const Entry& entry_named(const std::string& name) {
    std::string known;
    for (const Entry& entry : entries()) {
        if (entry.kind.name == name) return entry;
        known += (known.empty() ? "" : ", ") + entry.kind.name;
    }
    throw UsageError("--evaluator: unknown evaluator '" + name + "' (known: " + known + ")");
}

}  // namespace

CudaEvaluatorOptions cuda_options_for(const EvaluatorSettings& settings) {
    CudaEvaluatorOptions o = settings.cuda;
    if (o.function.empty()) o.function = settings.function;
    if (!settings.kernel_path.empty()) o.include_dirs.push_back(kernel_folder(settings.kernel_path));
    o.include_dirs.insert(o.include_dirs.end(), settings.include_dirs.begin(), settings.include_dirs.end());
    o.compile_options = settings.compile_options;
    return o;
}

const std::vector<EvaluatorKind>& evaluator_kinds() {
    static const std::vector<EvaluatorKind> kinds = [] {
        std::vector<EvaluatorKind> list;
        for (const Entry& entry : entries()) list.push_back(entry.kind);
        return list;
    }();
    return kinds;
}

void require_evaluator_kind(const std::string& name) { entry_named(name); }

std::unique_ptr<Evaluator> make_evaluator(const std::string& name, const Grammar& grammar, const EvaluatorSettings& settings) {
    return entry_named(name).make(grammar, settings);
}

}  // namespace gi
