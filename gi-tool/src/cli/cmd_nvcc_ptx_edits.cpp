// `gi-tool nvcc-ptx-edits`: compiles a kernel file with the build's own nvcc command, its PTX
// edited between the front end and ptxas (issue 46; cuda/nvcc_ptx_edits.hpp), so a genome's PTX
// edits reach the program the user's build links. The PTX the edits index is the same source's, made
// here as the cuda evaluator makes it, by the command's own nvcc (or read from --base-ptx); the
// kernel in the command's PTX must be that same code, or nothing is compiled.
#include <algorithm>
#include <iostream>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "genome/genome.hpp"
#include "ptx/ptx_edit.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/format.hpp"

namespace gi::cli {
namespace {

const char* const kUsage =
    "usage: gi-tool nvcc-ptx-edits (--genome TEXT | --edits FILE) --function NAME --arch ARCH\n"
    "           (--source FILE [--option O]... [--include DIR]... | --base-ptx FILE) -- nvcc ARGS...\n";
const char* const kAbout =
    "  Runs the nvcc command after -- step by step (the steps `nvcc --dryrun` lists), with the\n"
    "  genome's PTX edits applied to the PTX of ARCH's virtual architecture before ptxas reads it:\n"
    "  the object then holds the edited kernel, as the cuda evaluator built it. The edits index\n"
    "  PTX of --source made as the evaluator makes it (nvcc -ptx by the command's nvcc, with the\n"
    "  --option compile options; NVRTC where that fails),\n"
    "  or the PTX file --base-ptx; the kernel must be the same list of instructions in nvcc's PTX,\n"
    "  or the command fails naming the first difference and writes no object (exit 1).\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool nvcc-ptx-edits --genome \"BLOCK=64 ptx:del(12) ptx:swap(20,21)\" --function scale \\\n"
    "      --arch 90 --source variant.cu -- nvcc -arch=sm_90 -O3 -c variant.cu -o variant.o\n";

constexpr std::size_t kMaxPtxBytes = 256u << 20;

PtxModule base_ptx(const std::string& base_file, const std::string& source, const std::vector<std::string>& options,
                   const std::vector<std::string>& include_dirs, const std::vector<std::string>& names,
                   const std::string& arch, const std::string& nvcc) {
    if (!base_file.empty()) return parse_ptx(read_input_file(base_file, kMaxPtxBytes, "PTX file"), base_file);
    DeviceCompileRequest request;
    request.source = read_input_file(source, kMaxPtxBytes, "kernel file");
    request.name = source;
    request.options = options;
    request.include_dirs = include_dirs;
    request.name_expressions = names;
    request.arch = arch;
    const DeviceCompileResult r = ptx_as_evaluated(request, nvcc);
    if (!r.ok) throw Error("cannot compile " + source + " for the PTX the edits index:\n" + r.log);
    return parse_ptx(r.ptx, r.compiler + "'s PTX of " + source);
}

int run_nvcc_ptx_edits(const std::vector<std::string>& raw) {
    const auto dashes = std::find(raw.begin(), raw.end(), "--");
    std::vector<std::string> own(raw.begin(), dashes), command;
    if (dashes != raw.end()) command.assign(dashes + 1, raw.end());
    std::string genome_text, edits_file, function, arch, source, base_file;
    std::vector<std::string> options, include_dirs, names;
    CommandLine app(kUsage, kAbout, kExamples);
    app.add_text("--genome", genome_text, "TEXT", "the genome whose PTX edits to apply (its other genes are in the source)");
    app.add_text("--edits", edits_file, "FILE", "a file holding the genome, instead of --genome");
    app.add_text("--function", function, "NAME", "the kernel the edits are in");
    app.add_architecture("--arch", arch, "the architecture the edits were made for, whose PTX is edited");
    app.add_text("--source", source, "FILE", "the variant's source, compiled with NVRTC for the PTX the edits index");
    app.add_list("--option", options, "O", "a compile option the cuda evaluator compiled the variant with (nvcc spelling)");
    app.add_list("--include", include_dirs, "DIR", "an include folder NVRTC searches");
    app.add_list("--name-expression", names, "EXPR", "a template kernel's instantiation NVRTC emits (\"k<32>\")");
    app.add_text("--base-ptx", base_file, "FILE", "the PTX the edits index, instead of compiling --source");
    if (!app.parse(own)) return kExitOk;
    app.at_most_one_of("--genome", "--edits");
    app.at_most_one_of("--source", "--base-ptx");
    if (!app.given("--genome") && !app.given("--edits")) throw UsageError("missing the edits: --genome TEXT or --edits FILE");
    if (!app.given("--source") && !app.given("--base-ptx"))
        throw UsageError("missing the PTX the edits index: --source FILE or --base-ptx FILE");
    if (function.empty() || arch.empty()) throw UsageError("--function and --arch are required");
    if (command.empty()) throw UsageError("missing the compile command: -- nvcc ARGS...");

    const Genome genome =
        parse_genome(app.given("--edits") ? read_input_file(edits_file, kMaxGenomeFileBytes, "genome file") : genome_text);
    NvccPtxEdits request;
    request.command = command;
    ArchitecturePtxEdits target;
    target.edits = ptx_edits_of(genome);
    target.function = function;
    target.arch = arch;
    // The build's own nvcc makes the PTX the edits index, as the evaluator's did.
    target.base = base_ptx(base_file, source, options, include_dirs, names, arch, command.front());
    request.architectures.push_back(std::move(target));
    const NvccPtxEditsOutcome outcome = compile_with_ptx_edits(request, std::cout, std::cerr);
    for (const std::string& skipped : outcome.skipped)
        std::cerr << "gi-tool nvcc-ptx-edits: note: " << skipped << " no longer applied (an earlier edit removed its instruction)\n";
    return kExitOk;
}

const CommandRegistrar registrar({"nvcc-ptx-edits", "compile with nvcc, a genome's PTX edits applied", run_nvcc_ptx_edits});

}  // namespace
}  // namespace gi::cli
