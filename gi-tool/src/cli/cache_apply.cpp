#include "cli/cache_apply.hpp"

#include <filesystem>
#include <iostream>
#include <optional>

#include "cache/check.hpp"
#include "cache/entry.hpp"
#include "cache/files.hpp"
#include "cache/generate.hpp"
#include "cache/registration.hpp"
#include "cli/args.hpp"
#include "cli/cache_options.hpp"
#include "cli/command.hpp"
#include "cli/kernel_args.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi::cli {

namespace fs = std::filesystem;

int run_cache_apply(const std::vector<std::string>& argv, const std::string& program) {
    const std::vector<std::string> own = {"--grid", "--tolerance", "--arch", "--cache-dir", "--wrapper", "--header",
                                          "--options-file"};
    const Args args(argv, with(kernel_value_options(), own), with(kernel_switch_options(), {"--help", "--require"}));
    if (args.has("--help")) {
        std::cout << "usage: " << program << " KERNEL.cu --function NAME [options] --cache-dir DIR --arch N...\n"
                  << std::string(program.size() + 8, ' ') << "--wrapper OUT.cu --header OUT.h --options-file OUT.options [--require]\n"
                     "  What the CMake module runs at build time. For each architecture, checks its cache entry\n"
                     "  and writes next to OUT.cu the file <function>.sm_N.cu: the variant rebuilt from the cached\n"
                     "  genome and this kernel, or (entry missing, stale or invalid) an #include of the original\n"
                     "  kernel, with one line saying why. OUT.cu includes one of them per nvcc pass (__CUDA_ARCH__);\n"
                     "  OUT.h tells host code which variant runs and its parameter values. OUT.options holds the\n"
                     "  variants' compile options (from flag genes) for nvcc --options-file: one file is compiled\n"
                     "  once, so a variant whose options differ from the first variant's is not used. Unchanged\n"
                     "  files are not rewritten. --require: any entry that is not valid is an error (exit 1).\n\n"
                  << kernel_options_help() << kRegistrationHelp
                  << "\nexample:\n  " << program << " kernels/stereo/stereo.cu --function stereoKernel --param BLOCK_W=32,64,128 \\\n"
                     "      --cache-dir gi-cache --arch 80 --arch 90 --wrapper build/gi/stereoKernel.gi.cu \\\n"
                     "      --header build/gi/stereoKernel.gi.h --options-file build/gi/stereoKernel.options\n";
        return kExitOk;
    }
    const std::vector<int> architectures = architectures_from(args);
    if (architectures.empty()) throw UsageError("--arch N is required (each architecture the target compiles for)");
    const fs::path cache_dir = args.required("--cache-dir");
    const fs::path wrapper = args.required("--wrapper");
    const fs::path header = args.required("--header");
    const fs::path options_file = args.required("--options-file");
    const RegisteredKernel kernel = registered_kernel_from(args, kernel_path_from(args));
    const std::string identifier = registration_identifier(kernel.registration.functions);
    const std::string kernel_name = join(kernel.registration.functions, "+");
    const std::string original_include = fs::absolute(kernel.source.path).lexically_normal().string();

    std::vector<ArchitectureChoice> choices;
    // Architectures whose entry does not exist (without --require), and the first one's summary.
    std::vector<int> missing;
    std::string missing_summary;
    bool all_valid = true;
    std::optional<std::vector<std::string>> compile_options;  // of the first variant used
    for (const int arch : architectures) {
        EntryCheck check = check_cache_entry(cache_dir / cache_entry_file_name(kernel.registration.functions, arch), kernel, arch);
        if (check.status == EntryStatus::Valid && compile_options && *compile_options != check.variant->compile_options) {
            check.status = EntryStatus::Invalid;
            check.reasons.push_back("its compile options (" + join(check.variant->compile_options, " ") +
                                    ") differ from the first variant's (" + join(*compile_options, " ") +
                                    "); the wrapper is compiled once, with one set of options");
        }
        ArchitectureChoice choice;
        choice.architecture = arch;
        choice.variant_file = identifier + "." + architecture_name(arch) + ".cu";
        std::string file_text;
        if (check.status == EntryStatus::Valid) {
            choice.use_variant = true;
            choice.genome = check.entry->genome;
            choice.parameters = check.entry->parameters;
            choice.origin = check.path.string() + ", " + provenance_line(check.entry->provenance);
            if (check.entry->provenance.speedup() > 0)
                choice.origin += ", " + std::to_string(check.entry->provenance.speedup()) + "x";
            file_text = check.variant->source;
            compile_options = check.variant->compile_options;
            std::cout << "gi-optimize: " << kernel_name << " " << architecture_name(arch) << ": variant from "
                      << check.path.string() << ": " << (choice.genome.empty() ? "(empty genome)" : choice.genome);
            if (!check.entry->provenance.waiver.empty())
                std::cout << "; NOT VALIDATED, used because its writer opted in: " << check.entry->provenance.waiver;
            std::cout << "\n";
        } else if (check.status == EntryStatus::Missing && !args.has("--require")) {
            all_valid = false;
            choice.origin = to_string(check.status) + " cache entry " + check.path.string();
            file_text = "// gi-optimize: " + architecture_name(arch) + " compiles the original kernel: " + check.summary() +
                        "\n#include \"" + original_include + "\"\n";
            if (missing.empty()) missing_summary = check.summary();
            missing.push_back(arch);  // routine: one line for all such architectures, after the loop
        } else {
            all_valid = false;
            choice.origin = to_string(check.status) + " cache entry " + check.path.string();
            file_text = "// gi-optimize: " + architecture_name(arch) + " compiles the original kernel: " + check.summary() +
                        "\n#include \"" + original_include + "\"\n";
            (args.has("--require") ? std::cerr : std::cout)
                << "gi-optimize: " << kernel_name << " " << architecture_name(arch) << ": "
                << (args.has("--require") ? "error" : "original kernel") << ": " << check.summary() << "\n";
        }
        write_file_if_changed(wrapper.parent_path() / choice.variant_file, file_text);
        choices.push_back(std::move(choice));
    }
    if (missing.size() == 1) {
        std::cout << "gi-optimize: " << kernel_name << " " << architecture_name(missing[0])
                  << ": original kernel: " << missing_summary << "\n";
    } else if (missing.size() > 1) {
        std::string shown;
        for (const int arch : missing) shown += (shown.empty() ? "" : ", ") + architecture_name(arch);
        std::cout << "gi-optimize: " << kernel_name << " " << shown << ": original kernel: no cache entries in "
                  << cache_dir.string() << "\n";
    }
    if (!all_valid && args.has("--require")) {
        std::cerr << "gi-optimize: GI_REQUIRE_CACHE is on: every architecture needs a valid cache entry (evolve on a GPU "
                     "and commit the entry, or turn GI_REQUIRE_CACHE off to build with the original kernel)\n";
        return kExitFailure;
    }
    std::string options_text;
    for (const std::string& option : compile_options.value_or(std::vector<std::string>{})) options_text += option + "\n";
    write_file_if_changed(options_file, options_text);
    write_file_if_changed(wrapper, wrapper_source(kernel_name, original_include, choices));
    write_file_if_changed(header, variants_header(identifier, kernel_name, kernel.grammar, choices));
    return kExitOk;
}

}  // namespace gi::cli
