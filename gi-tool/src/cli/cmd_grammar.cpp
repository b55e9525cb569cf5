// `gi-tool grammar`: shows the grammar of a kernel as BNF (or a count per rule kind), so a person
// can see what evolution may edit before running it.
#include <iostream>
#include <map>
#include <sstream>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "grammar/bnf.hpp"
#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/output_path.hpp"

namespace gi::cli {
namespace {

std::string summary(const Grammar& grammar) {
    std::map<RuleKind, int> per_kind;
    for (const Rule& rule : grammar.rules) ++per_kind[rule.kind];
    // Lines of the functions without a slot are the fixed rules, as in the seeds' counts.
    int lines = 0;
    for (const Function& f : grammar.functions) lines += f.last_line - f.first_line + 1;
    std::map<int, bool> slot_lines;
    for (const Rule& rule : grammar.rules) slot_lines[rule.line] = true;
    const int fixed = lines - static_cast<int>(slot_lines.size());
    std::ostringstream out;
    out << grammar.file_name << ": " << (fixed + static_cast<int>(grammar.rules.size())) << " rules, " << fixed
        << " fixed";
    for (const RuleKindInfo& kind : rule_kinds()) out << ", " << per_kind[kind.kind] << " " << kind.label;
    out << "; " << grammar.genes.size() << " genes";
    std::map<GeneKind, int> genes;
    for (const Gene& gene : grammar.genes) ++genes[gene.kind];
    const std::pair<GeneKind, const char*> names[] = {
        {GeneKind::Param, "param"},       {GeneKind::Guard, "guard"},       {GeneKind::Flag, "flag"},
        {GeneKind::Restrict, "restrict"}, {GeneKind::Volatile, "volatile"}, {GeneKind::Const, "const"},
        {GeneKind::LaunchBounds, "launch_bounds"}, {GeneKind::Unroll, "unroll"}, {GeneKind::Hoist, "hoist"},
        {GeneKind::Unguard, "unguard"}, {GeneKind::Vectorize, "vec"},
        {GeneKind::WarpReduce, "shfl"}, {GeneKind::Coarsen, "coarsen"}, {GeneKind::Stage, "stage"}};
    std::string detail;
    for (const auto& [kind, name] : names)
        if (genes[kind]) detail += (detail.empty() ? "" : ", ") + std::to_string(genes[kind]) + " " + name;
    if (!detail.empty()) out << " (" << detail << ")";
    out << "\n";
    for (const Function& f : grammar.functions)
        out << "  " << (f.is_global ? "__global__ " : "__device__ ") << f.name << ": lines " << f.first_line << "-"
            << f.last_line << "\n";
    for (const std::string& note : grammar.notes) out << "  note: " << note << "\n";
    return out.str();
}

int run_grammar(const std::vector<std::string>& arguments) {
    KernelSettings kernel;
    std::string output;
    bool counts = false;
    CommandLine app(
        "usage: gi-tool grammar KERNEL.cu [--function NAME...] [kernel options] [-o FILE] [--summary]\n",
        "  Prints the kernel's grammar as BNF: every line of the selected functions, the\n"
        "  editable rules (<_ statements, <IF_ conditions, <for1_/<for2_/<for3_ loop-header\n"
        "  parts, <pragma_ unroll slots) and the configuration genes with their values.\n",
        "example:\n"
        "  gi-tool grammar kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64,128 --summary\n");
    app.add_kernel_options(kernel);
    app.add_text("-o,--output", output, "FILE", "write the BNF (or the summary) to FILE instead of stdout");
    app.add_switch("--summary", counts, "print counts per rule kind and gene kind instead of the BNF");
    if (!app.parse(arguments)) return kExitOk;
    if (!output.empty()) OutputGuard().keep(kernel_path_from(kernel), "the kernel file").check("-o", output, "the grammar");
    const Grammar grammar = grammar_from(kernel);
    const std::string text = counts ? summary(grammar) : grammar_to_bnf(grammar);
    if (!output.empty()) {
        // Whole or not at all: a full disk leaves the previous file, not an empty one.
        write_file_atomically(output, text);
    } else {
        std::cout << text;
    }
    return kExitOk;
}

const CommandRegistrar registrar({"grammar", "print a kernel's grammar as BNF (what evolution may edit)", run_grammar});

}  // namespace
}  // namespace gi::cli
