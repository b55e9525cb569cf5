#include "cli/kernel_args.hpp"

#include "cli/help_text.hpp"
#include "grammar/build_grammar.hpp"
#include "util/error.hpp"

namespace gi::cli {

const char* const kKernelFileHelp = "the CUDA source file holding the kernel";

const std::vector<KernelOption>& kernel_options() {
    using K = KernelSettings;
    static const std::vector<KernelOption> options{
        {"--function", "NAME", "__global__ function to work on (repeatable; default: every one)", &K::functions},
        {"--param", "NAME=VALUES",
         "tunable #define parameter; VALUES like 32,64,128 or 1..48 or 1..8,12,16 (the file must #define NAME; its value "
         "is the default)",
         &K::params},
        {"--flag", "SPEC", "compile-option gene: -use_fast_math (on/off), -maxrregcount={32..255}, [NAME:]-Xptxas -dlcm={ca|cg}",
         &K::flags},
        {"--block-size", "EXPR",
         "threads per block as X[,Y[,Z]] over parameters, e.g. BLOCK_W,4; enables the __launch_bounds__ gene", nullptr,
         &K::block_size},
        {"--no-helpers", "", "do not make rules for __device__ functions the kernel calls", nullptr, nullptr, &K::no_helpers},
        {"--no-transforms", "",
         "offer no transformation genes (unroll_, hoist_, unguard_: loops unrolled by hand, declarations hoisted, bounds "
         "checks dropped), to measure line edits alone",
         nullptr, nullptr, &K::no_transforms},
        {"-I", "DIR", "include folder the kernel file needs besides its own (repeatable)", &K::include_dirs},
        {"-D", "NAME[=VALUE]", "macro the kernel file is compiled with (repeatable)", &K::defines},
        {"--compile-option", "WORD",
         "other nvcc word the program compiles the file with, e.g. --expt-relaxed-constexpr (repeatable)",
         &K::compile_options},
    };
    return options;
}

std::vector<std::string> kernel_value_options() {
    std::vector<std::string> names;
    for (const KernelOption& o : kernel_options())
        if (!o.flag) names.push_back(o.name);
    return names;
}

std::vector<std::string> kernel_switch_options() {
    std::vector<std::string> names;
    for (const KernelOption& o : kernel_options())
        if (o.flag) names.push_back(o.name);
    return names;
}

std::string kernel_options_help() {
    std::string help = "kernel options:\n" + option_help_line("KERNEL.cu", kKernelFileHelp);
    for (const KernelOption& o : kernel_options())
        help += option_help_line(std::string(o.name) + (*o.value_name ? " " : "") + o.value_name, o.help);
    return help;
}

KernelSettings kernel_settings_from(const Args& args) {
    KernelSettings kernel;
    for (const KernelOption& o : kernel_options()) {
        if (o.list) kernel.*o.list = args.values(o.name);
        if (o.text) kernel.*o.text = args.value(o.name).value_or("");
        if (o.flag) kernel.*o.flag = args.has(o.name);
    }
    if (args.positional().size() > 1)
        throw UsageError("expected one kernel file, got '" + args.positional()[0] + "' and '" + args.positional()[1] + "'");
    if (!args.positional().empty()) kernel.path = args.positional()[0];
    return kernel;
}

GrammarOptions grammar_options_from(const KernelSettings& kernel) {
    GrammarOptions options;
    options.functions = kernel.functions;
    options.include_helpers = !kernel.no_helpers;
    options.transforms = !kernel.no_transforms;
    for (const std::string& text : kernel.params) options.params.push_back(parse_param_declaration(text, "--param"));
    for (const std::string& text : kernel.flags) options.flags.push_back(parse_flag_declaration(text, "--flag"));
    options.block_size = kernel.block_size;
    return options;
}

std::string kernel_path_from(const KernelSettings& kernel) {
    if (kernel.path.empty()) throw UsageError("missing KERNEL.cu (the CUDA source file to work on)");
    return kernel.path;
}

CompileSettings compile_settings_from(const KernelSettings& kernel) {
    CompileSettings settings;
    settings.include_dirs = kernel.include_dirs;
    for (const std::string& define : kernel.defines) {
        if (define.empty() || define.front() == '=')
            throw UsageError("-D '" + define + "' names no macro (write -D NAME or -D NAME=VALUE)");
        settings.options.push_back("-D" + define);
    }
    for (const std::string& word : kernel.compile_options) {
        if (word.empty()) throw UsageError("--compile-option needs a word");
        settings.options.push_back(word);
    }
    return settings;
}

Grammar grammar_from(const KernelSettings& kernel) {
    return build_grammar(read_source_file(kernel_path_from(kernel)), grammar_options_from(kernel));
}

}  // namespace gi::cli
