// `gi-tool apply`: writes the variant a genome makes of a kernel, so a person can read, diff or
// compile exactly what evolution produced.
#include <filesystem>
#include <iostream>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "genome/genome.hpp"
#include "genome/validate.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/format.hpp"
#include "util/output_path.hpp"
#include "variant/apply.hpp"

namespace gi::cli {
namespace {

const char* const kUsage = "usage: gi-tool apply KERNEL.cu [kernel options] (--genome TEXT | --genome-file FILE) -o OUT.cu\n";
const char* const kAbout =
    "  Applies a genome (gene settings and edits) to the kernel and writes the variant source.\n"
    "  Prints the compile options the genome implies; edits that no longer applied (their\n"
    "  target was deleted or replaced by an earlier edit) are listed on stderr. A genome\n"
    "  that does not fit the kernel is refused with every problem listed (exit 1).\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool apply kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64,128 \\\n"
    "      --genome \"BLOCK_W=128 <pragma_stereo.cu_156><pragma_K4> <_stereo.cu_167>\" -o variant.cu\n";

std::string genome_text_from(const CommandLine& app, const std::string& text, const std::string& file) {
    const bool has_text = app.given("--genome"), has_file = app.given("--genome-file");
    if (has_text && has_file) throw UsageError("give the genome either with --genome or with --genome-file, not both");
    if (!has_text && !has_file) throw UsageError("missing the genome: --genome \"TEXT\" or --genome-file FILE");
    return has_text ? text : read_input_file(file, kMaxGenomeFileBytes, "genome file");
}

int run_apply(const std::vector<std::string>& raw) {
    KernelSettings kernel;
    std::string genome_text, genome_file, out;
    CommandLine app(kUsage, kAbout, kExamples);
    app.add_text("--genome", genome_text, "TEXT", "the genome, e.g. \"BLOCK_W=128 <_k.cu_12> <IF_k.cu_30><IF_k.cu_18>\"");
    app.add_text("--genome-file", genome_file, "FILE", "read the genome from FILE instead");
    app.add_text("-o,--out", out, "OUT.cu", "where to write the variant ('-' for standard output)").required();
    app.add_kernel_options(kernel);
    if (!app.parse(raw)) return kExitOk;
    if (out != "-") {
        // Writing the variant over the kernel would lose the user's original, the one thing every
        // variant is checked against.
        OutputGuard guard;
        guard.keep(kernel_path_from(kernel), "the kernel file");
        if (app.given("--genome-file")) guard.keep(genome_file, "the genome file");
        guard.check("-o", out, "the variant");
    }
    const Genome genome = parse_genome(genome_text_from(app, genome_text, genome_file));
    const Grammar grammar = grammar_from(kernel);

    const auto problems = validate_genome(genome, grammar);
    if (!problems.empty()) {
        std::cerr << "gi-tool apply: the genome does not fit " << grammar.source_path << " (" << problems.size()
                  << (problems.size() == 1 ? " problem" : " problems") << "):\n";
        for (const GenomeProblem& p : problems) std::cerr << "  " << p.item << ": " << p.message << "\n";
        std::cerr << "(see 'gi-tool grammar' for the kernel's rules and genes)\n";
        return kExitFailure;
    }

    const AppliedVariant variant = apply_genome(genome, grammar);
    // A transformation gene's entry carries its own reason ("unroll_k.cu_2=4 (not applied: ...)").
    for (const std::string& skipped : variant.skipped_edits)
        if (skipped.find(" (not applied: ") != std::string::npos)
            std::cerr << "skipped setting " << skipped << "\n";
        else
            std::cerr << "skipped edit " << skipped << ": an earlier edit already deleted or replaced its target\n";
    // The variant file is source: PTX edits act on its compiled PTX (ptx/ptx_edit.hpp), so it holds
    // the genome's source part only, and says so rather than pass for the whole genome.
    std::vector<std::string> ptx_items;
    for (const Edit& edit : genome.edits)
        if (is_ptx_edit(edit)) ptx_items.push_back(edit_to_text(edit));
    if (!ptx_items.empty())
        std::cerr << "gi-tool apply: note: the variant file leaves out the genome's PTX edits (" << join(ptx_items, " ")
                  << "): they act on its compiled PTX, not on its source\n";
    std::string options;
    for (const std::string& option : variant.compile_options) options += " " + option;
    // With the variant on standard output, the options go to stderr so the source stays clean.
    std::ostream& info = out == "-" ? std::cerr : std::cout;
    if (out == "-")
        std::cout << variant.source;
    else
        write_file_atomically(out, variant.source);
    if (out != "-") info << "wrote " << out << "\n";
    info << "compile options:" << (options.empty() ? " (none)" : options) << "\n";
    return kExitOk;
}

const CommandRegistrar registrar({"apply", "write the variant a genome makes of a kernel", run_apply});

}  // namespace
}  // namespace gi::cli
