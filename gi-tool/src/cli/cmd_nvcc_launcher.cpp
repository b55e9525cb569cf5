// `gi-tool nvcc-launcher`: the CUDA compiler launcher the CMake module sets on a target whose
// cached variants have PTX edits (issue 46). Every compile of the target passes through it: those
// of other sources run as they are (through the launcher the user set, ccache say), and that of a
// wrapper runs nvcc's own steps with each listed architecture's PTX edited before ptxas
// (cuda/nvcc_ptx_edits.hpp). When the edits cannot be applied (nvcc's PTX of the kernel is not the
// one NVRTC made, which the edits index; a step fails), the wrapper's fallback, whose architectures
// compile the original kernel, is compiled instead, with one line saying why; --require makes that
// an error. The list of edited architectures is written by `cache apply --ptx-edits`
// (cache/ptx_manifest.hpp).
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>

#include "cache/ptx_manifest.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/format.hpp"
#include "util/text_rule.hpp"

namespace gi::cli {
namespace {

namespace fs = std::filesystem;

const char* const kUsage =
    "usage: gi-tool nvcc-launcher --compiler NVCC --wrapper W.gi.cu... [--require] [--option O]...\n"
    "           [--include DIR]... -- [LAUNCHER...] NVCC ARGS...\n";
const char* const kAbout =
    "  The compiler launcher the CMake module sets (CUDA_COMPILER_LAUNCHER) on a target whose cached\n"
    "  variants have PTX edits. A compile of a source that is not a --wrapper runs as it is. A\n"
    "  wrapper's compile reads the list beside it (<file>.ptx-edits, written by `cache apply\n"
    "  --ptx-edits`) and runs NVCC ARGS as `gi-tool nvcc-ptx-edits` does, each listed architecture's\n"
    "  PTX edited; the launchers before NVCC (ccache) are left out there, since they would cache the\n"
    "  object without the edits. The edits index the variant's PTX as evolution made it (nvcc -ptx),\n"
    "  compiled with the --option compile options, those the CMake module wrote beside the wrapper\n"
    "  (<file>.nvrtc-arguments: the registration's -I, -D and --compile-option) and the variant's\n"
    "  own. When they cannot be\n"
    "  applied, <file>.fallback.gi.cu (those architectures compile the original kernel) is compiled\n"
    "  in the wrapper's place, with one line saying why; --require: exit 1 instead.\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool nvcc-launcher --compiler /usr/local/cuda/bin/nvcc --wrapper build/gi/scale.gi.cu -- \\\n"
    "      ccache /usr/local/cuda/bin/nvcc -arch=sm_90 -c build/gi/scale.gi.cu -o scale.o\n";

constexpr std::size_t kMaxListBytes = 1 << 20;
constexpr std::size_t kMaxVariantBytes = 64u << 20;

// Replaces this process by `argv` (the compile as CMake asked for it, or its fallback): its
// output and exit status are the build's.
[[noreturn]] void become(const std::vector<std::string>& argv) {
    std::cout.flush();
    std::cerr.flush();
    std::vector<char*> pointers;
    for (const std::string& a : argv) pointers.push_back(const_cast<char*>(a.c_str()));
    pointers.push_back(nullptr);
    ::execvp(pointers[0], pointers.data());
    std::cerr << "gi-tool nvcc-launcher: cannot run '" << printable(argv[0]) << "': " << std::strerror(errno) << "\n";
    std::_Exit(127);
}

bool same_file(const std::string& a, const fs::path& b) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
}

// The wrapper `args` (nvcc's arguments) compile, if any.
std::optional<fs::path> compiled_wrapper(const std::vector<std::string>& args, const std::vector<std::string>& wrappers) {
    for (const std::string& wrapper : wrappers)
        if (std::any_of(args.begin(), args.end(), [&](const std::string& a) { return same_file(a, wrapper); }))
            return fs::path(wrapper);
    return std::nullopt;
}

// "scale" of "…/scale.gi.cu": the name the files cache apply writes beside it start with.
std::string file_identifier_of(const fs::path& wrapper) {
    const std::string name = wrapper.filename().string();
    const std::string suffix = ".gi.cu";
    if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        throw UsageError("--wrapper " + wrapper.string() + ": not a wrapper the CMake module generates (<file>.gi.cu)");
    return name.substr(0, name.size() - suffix.size());
}

// The registration's compile arguments the CMake module writes beside the wrapper
// (<file>.nvrtc-arguments: gi-tool's kernel options, one word a line, "-I<dir>", "-D<name>",
// "--compile-option" then its value, or "--compile-option=<value>"), added to `options` and
// `include_dirs` as the evaluator compiled the variants with them. Nothing when there is no file.
void add_registration_arguments(const fs::path& file, std::vector<std::string>& options, std::vector<std::string>& include_dirs) {
    std::error_code ec;
    if (!fs::exists(file, ec)) return;
    const std::string text = read_input_file(file, kMaxListBytes, "registration's compile arguments");
    std::vector<std::string> lines;
    for (std::size_t start = 0; start < text.size();) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        if (end > start) lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    const std::string joined = "--compile-option=";
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string& line = lines[i];
        if (line.rfind("-I", 0) == 0 && line.size() > 2) {
            include_dirs.push_back(line.substr(2));
        } else if (line.rfind("-D", 0) == 0 && line.size() > 2) {
            options.push_back(line);
        } else if (line == "--compile-option" && i + 1 < lines.size()) {
            options.push_back(lines[++i]);
        } else if (line.rfind(joined, 0) == 0) {
            options.push_back(line.substr(joined.size()));
        } else {
            throw Error(file.string() + ": '" + excerpt(line) + "' is not -I<dir>, -D<name> or --compile-option (written by the "
                        "CMake module when configuring; configure again)");
        }
    }
}

// `args` compiling the fallback in the wrapper's place: the wrapper's path and its options file's.
std::vector<std::string> fallback_arguments(std::vector<std::string> args, const fs::path& wrapper, const PtxEditsFiles& files,
                                            const std::string& file_identifier) {
    const fs::path options = wrapper.parent_path() / (file_identifier + ".options");
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string& a = args[i];
        const std::string joined = "--options-file=";
        if (same_file(a, wrapper)) {
            a = files.fallback_wrapper.string();
        } else if (a.rfind(joined, 0) == 0 && same_file(a.substr(joined.size()), options)) {
            a = joined + files.fallback_options.string();
        } else if ((a == "--options-file" || a == "-optf") && i + 1 < args.size() && same_file(args[i + 1], options)) {
            args[++i] = files.fallback_options.string();
        }
    }
    return args;
}

int run_nvcc_launcher(const std::vector<std::string>& raw) {
    const auto dashes = std::find(raw.begin(), raw.end(), "--");
    const std::vector<std::string> own(raw.begin(), dashes);
    std::vector<std::string> command;
    if (dashes != raw.end()) command.assign(dashes + 1, raw.end());
    std::string compiler;
    std::vector<std::string> wrappers, options, include_dirs;
    bool require = false;
    CommandLine app(kUsage, kAbout, kExamples);
    app.add_text("--compiler", compiler, "NVCC", "the CUDA compiler CMake runs (CMAKE_CUDA_COMPILER): the words before it are launchers");
    app.add_list("--wrapper", wrappers, "W", "a generated wrapper whose compile applies its variants' PTX edits");
    app.add_switch("--require", require, "edits that cannot be applied are an error, not the original kernel (GI_REQUIRE_CACHE)");
    app.add_list("--option", options, "O", "a compile option the variants were evolved with (the registration's), for NVRTC");
    app.add_list("--include", include_dirs, "DIR", "an include folder NVRTC searches (the kernel's own, the registration's)");
    if (!app.parse(own)) return kExitOk;
    if (compiler.empty() || wrappers.empty()) throw UsageError("--compiler and --wrapper are required");
    if (command.empty()) throw UsageError("missing the compile command: -- [LAUNCHER...] NVCC ARGS...");

    // The compiler is the first word that is --compiler; those before it are the user's launchers.
    const auto nvcc = std::find_if(command.begin(), command.end(), [&](const std::string& word) {
        return word == compiler || same_file(word, compiler);
    });
    if (nvcc == command.end()) become(command);  // not a CUDA compile this launcher knows: as it is
    const std::vector<std::string> launchers(command.begin(), nvcc);
    const std::vector<std::string> args(nvcc + 1, command.end());
    const std::optional<fs::path> wrapper = compiled_wrapper(args, wrappers);
    if (!wrapper) become(command);

    const std::string file_identifier = file_identifier_of(*wrapper);
    const PtxEditsFiles files = ptx_edits_files(*wrapper, file_identifier);
    std::string names = "?";  // the edited architectures, for the line saying why they compile the original
    try {
        const std::vector<PtxEditedArchitecture> edited =
            parse_ptx_manifest(read_input_file(files.manifest, kMaxListBytes, "list of PTX edits"), files.manifest.string());
        if (edited.empty()) become(command);  // no architecture's variant has PTX edits
        names.clear();
        for (const PtxEditedArchitecture& e : edited)
            names += (names.empty() ? "" : ", sm_") + std::to_string(e.architecture);
        add_registration_arguments(wrapper->parent_path() / (file_identifier + ".nvrtc-arguments"), options, include_dirs);
        NvccPtxEdits request;
        request.command.push_back(*nvcc);
        request.command.insert(request.command.end(), args.begin(), args.end());
        for (const PtxEditedArchitecture& e : edited) {
            const fs::path variant = wrapper->parent_path() / e.variant_file;
            const fs::path genome_file = wrapper->parent_path() / e.genome_file;
            DeviceCompileRequest nvrtc;
            nvrtc.source = read_input_file(variant, kMaxVariantBytes, "variant");
            nvrtc.name = variant.string();
            nvrtc.options = options;
            nvrtc.options.insert(nvrtc.options.end(), e.compile_options.begin(), e.compile_options.end());
            nvrtc.include_dirs = include_dirs;
            nvrtc.arch = "sm_" + std::to_string(e.architecture);
            const DeviceCompileResult r = ptx_as_evaluated(nvrtc, *nvcc);  // the build's own nvcc, as the evaluator's
            if (!r.ok) throw Error("cannot compile " + variant.string() + " for the PTX the edits index: " + excerpt(r.log, 400));
            ArchitecturePtxEdits target;
            target.edits = ptx_edits_of(parse_genome(read_input_file(genome_file, kMaxGenomeFileBytes, "genome file")));
            target.base = parse_ptx(r.ptx, r.compiler + "'s PTX of " + variant.string());
            target.function = e.function;
            target.arch = nvrtc.arch;
            request.architectures.push_back(std::move(target));
        }
        const NvccPtxEditsOutcome outcome = compile_with_ptx_edits(request, std::cout, std::cerr);
        for (const std::string& skipped : outcome.skipped)
            std::cerr << "gi-tool nvcc-launcher: note: " << skipped << " no longer applied (an earlier edit removed its instruction)\n";
        return kExitOk;
    } catch (const Error& e) {
        std::string why = e.what();
        why = why.substr(0, why.find('\n'));
        if (require) {
            std::cerr << "gi-optimize: " << file_identifier << " sm_" << names << ": error: the variant's PTX edits cannot be "
                      << "applied: " << printable(why) << " (GI_REQUIRE_CACHE is on)\n";
            return kExitFailure;
        }
        std::cout << "gi-optimize: " << file_identifier << " sm_" << names << ": original kernel: the variant's PTX edits "
                  << "cannot be applied: " << printable(why) << "\n";
    }
    std::vector<std::string> fallback = launchers;
    fallback.push_back(*nvcc);
    const std::vector<std::string> fallback_args = fallback_arguments(args, *wrapper, files, file_identifier);
    fallback.insert(fallback.end(), fallback_args.begin(), fallback_args.end());
    become(fallback);
}

const CommandRegistrar registrar({"nvcc-launcher", "the build's compiler launcher: PTX edits applied to a wrapper", run_nvcc_launcher});

}  // namespace
}  // namespace gi::cli
