#include "cli/kernel_args.hpp"

#include "grammar/build_grammar.hpp"
#include "util/error.hpp"

namespace gi::cli {

std::vector<std::string> kernel_value_options() {
    return {"--function", "--param", "--flag", "--block-size", "-I", "-D", "--compile-option"};
}

std::vector<std::string> kernel_switch_options() { return {"--no-helpers"}; }

std::string kernel_options_help() {
    return "kernel options:\n"
           "  KERNEL.cu                 the CUDA source file holding the kernel\n"
           "  --function NAME           __global__ function to work on (repeatable; default: every one)\n"
           "  --param NAME=VALUES       tunable #define parameter; VALUES like 32,64,128 or 1..48 or\n"
           "                            1..8,12,16 (the file must #define NAME; its value is the default)\n"
           "  --flag SPEC               compile-option gene: -use_fast_math (on/off),\n"
           "                            -maxrregcount={32..255}, [NAME:]-Xptxas -dlcm={ca|cg}\n"
           "  --block-size EXPR         threads per block as X[,Y[,Z]] over parameters, e.g. BLOCK_W,4;\n"
           "                            enables the __launch_bounds__ gene\n"
           "  --no-helpers              do not make rules for __device__ functions the kernel calls\n"
           "  -I DIR                    include folder the kernel file needs besides its own (repeatable)\n"
           "  -D NAME[=VALUE]           macro the kernel file is compiled with (repeatable)\n"
           "  --compile-option WORD     other nvcc word the program compiles the file with, e.g.\n"
           "                            --expt-relaxed-constexpr (repeatable)\n";
}

GrammarOptions grammar_options_from(const Args& args) {
    GrammarOptions options;
    options.functions = args.values("--function");
    options.include_helpers = !args.has("--no-helpers");
    for (const std::string& text : args.values("--param"))
        options.params.push_back(parse_param_declaration(text, "--param"));
    for (const std::string& text : args.values("--flag"))
        options.flags.push_back(parse_flag_declaration(text, "--flag"));
    options.block_size = args.value("--block-size").value_or("");
    return options;
}

std::string kernel_path_from(const Args& args) {
    if (args.positional().empty()) throw UsageError("missing KERNEL.cu (the CUDA source file to work on)");
    if (args.positional().size() > 1)
        throw UsageError("expected one kernel file, got '" + args.positional()[0] + "' and '" +
                         args.positional()[1] + "'");
    return args.positional()[0];
}

CompileSettings compile_settings_from(const Args& args) {
    CompileSettings settings;
    settings.include_dirs = args.values("-I");
    for (const std::string& define : args.values("-D")) {
        if (define.empty() || define.front() == '=')
            throw UsageError("-D '" + define + "' names no macro (write -D NAME or -D NAME=VALUE)");
        settings.options.push_back("-D" + define);
    }
    for (const std::string& word : args.values("--compile-option")) {
        if (word.empty()) throw UsageError("--compile-option needs a word");
        settings.options.push_back(word);
    }
    return settings;
}

Grammar grammar_from(const Args& args) {
    const GrammarOptions options = grammar_options_from(args);
    return build_grammar(read_source_file(kernel_path_from(args)), options);
}

}  // namespace gi::cli
