#include "cli/evaluator_options.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace gi::cli {
namespace {

// --arch, --nvcc and --jobs: read by compile-only and cuda alike.
const char* const kCompilerGroup = "compiler options (compile-only and cuda evaluators)";

// Each group of options and the evaluators that read it.
struct OptionGroup {
    std::string name;
    std::vector<std::string> kinds;
};
const std::vector<OptionGroup>& option_groups() {
    static const std::vector<OptionGroup> groups{
        {"fake evaluator options", {"fake"}},
        {"compile-only evaluator options", {"compile-only"}},
        {kCompilerGroup, {"compile-only", "cuda"}},
        {"cuda evaluator options", {"cuda"}},
    };
    return groups;
}
const std::string& group_of(const std::string& kind) {
    for (const OptionGroup& g : option_groups())
        if (g.kinds == std::vector<std::string>{kind}) return g.name;
    throw Error("no option group for evaluator " + kind);
}

// The registration's own options describe the kernel (a build's .registration file holds them); an
// evaluator that does not launch it has no use for them, but they are not a mistake.
bool describes_the_kernel(const std::string& option) { return option == "--grid" || option == "--tolerance"; }

}  // namespace

EvaluatorSettings evaluator_settings_for(const KernelSettings& kernel) {
    EvaluatorSettings s;
    s.kernel_path = kernel.path;
    if (!kernel.functions.empty()) s.function = kernel.functions.front();
    const CompileSettings compile = compile_settings_from(kernel);
    s.include_dirs = compile.include_dirs;
    s.compile_options = compile.options;
    return s;
}

void add_evaluator_options(CommandLine& app, EvaluatorCommandLine& e) {
    std::string kinds;
    for (const EvaluatorKind& kind : evaluator_kinds()) kinds += "\n" + kind.name + ": " + kind.summary;
    app.add_text("--evaluator", e.name, "NAME", "how variants are measured:" + kinds).group("search options").required();
    app.add_list("--fake", e.fake, "NAME=VALUE",
             "fake landscape setting, repeatable: seed=N (default 1), cases=N (8), noise=R relative timing spread (0.01), "
             "random=0|1 (1: seeded effects for every item), delay-ms=N (sleep per batch)")
        .group(group_of("fake"));
    app.add_list("--nvcc-flag", e.nvcc_flags, "WORD", "extra nvcc word, repeatable (e.g. -std=c++17)").group(group_of("compile-only"));
    app.add_integer("--compile-timeout", e.compile_timeout_s, 1, 3600, "seconds before a compile is abandoned")
        .group(group_of("compile-only"));
    add_compiler_options(app, e.compiler, kCompilerGroup);
    add_cuda_options(app, e.cuda, group_of("cuda"));
}

EvaluatorSettings evaluator_settings(const CommandLine& app, const EvaluatorCommandLine& e, const KernelSettings& kernel) {
    require_evaluator_kind(e.name);
    // An option meant for another evaluator is almost always a mistake worth hearing about.
    for (const OptionGroup& group : option_groups()) {
        if (std::find(group.kinds.begin(), group.kinds.end(), e.name) != group.kinds.end()) continue;
        for (const std::string& option : app.given_in_group(group.name))
            if (!describes_the_kernel(option))
                throw UsageError("option " + option + " does not apply to --evaluator " + e.name);
    }
    EvaluatorSettings s = evaluator_settings_for(kernel);
    for (const std::string& setting : e.fake) apply_fake_setting(s.fake, setting, "--fake");
    s.compile_only.nvcc.nvcc = e.compiler.nvcc;
    if (!e.compiler.arch.empty()) s.compile_only.nvcc.arch = e.compiler.arch;
    s.compile_only.nvcc.flags = e.nvcc_flags;
    s.compile_only.nvcc.timeout = std::chrono::seconds(e.compile_timeout_s);
    if (e.compiler.jobs > 0) s.compile_only.jobs = e.compiler.jobs;
    if (e.name == "cuda") s.cuda = cuda_evaluator_options(app, e.cuda, e.compiler, kernel.block_size);
    return s;
}

}  // namespace gi::cli
