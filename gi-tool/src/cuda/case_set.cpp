#include "cuda/case_set.hpp"

#include <algorithm>
#include <iostream>

#include "compare/recorded_outputs.hpp"
#include "grammar/grammar.hpp"
#include "grammar/preprocessor.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "worker/kernel_name.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {

// The cases in `dir` recorded from the kernel, appended to `set`.
void add_cases(CaseSet& set, const CaseKernel& kernel, const std::string& recorded, const fs::path& dir, bool held_out,
               bool gate) {
    std::vector<fs::path> found = list_test_cases(dir, recorded);
    // A template's launches may be recorded under an instantiation's name ("K<16>", folders
    // K_16_-NNNN) rather than the template's: it then takes the cases of the folder whose recorded
    // symbol is an instantiation of it, chosen below case by case. Any other kernel takes the
    // cases recorded under its name, or none.
    if (found.empty() && kernel.is_template) found = list_test_cases(dir);
    for (const fs::path& path : found) {
        CaseSlot slot;
        slot.path = path;
        slot.held_out = held_out;
        slot.gate = gate;
        slot.manifest = read_test_case(path, CaseLoad::ManifestOnly);
        slot.kernel = kernel.function;
        if (kernel.is_template) {
            // Which instantiation ran is in the case; a registration naming one takes its cases only.
            if (slot.manifest.symbol.empty())
                throw Error(path.string() + ": '" + kernel.function + "' is a template, and this case does not say which "
                            "instantiation of it ran (recorded by an older recorder, or with a driver older than CUDA 12.3, "
                            "which cannot name the launched kernel); record it again");
            const std::string demangled = worker::demangled_name(slot.manifest.symbol);
            const std::string instance = worker::kernel_instantiation_name(demangled);
            // "K<TILE>": the program ran the instantiation the parameter's default names.
            const std::string wanted = kernel.registered.empty() ? kernel.function
                                                                 : with_template_arguments(kernel.registered, kernel.param_texts);
            if (!worker::kernel_name_matches(wanted, slot.manifest.symbol, demangled)) continue;
            slot.kernel = slot.manifest.symbol;
            if (std::find(set.instantiations.begin(), set.instantiations.end(), instance) == set.instantiations.end())
                set.instantiations.push_back(instance);
        }
        if (slot.manifest.args.size() != kernel.arg_names.size())
            throw Error(path.string() + ": the recorded launch passes " + std::to_string(slot.manifest.args.size()) +
                        " arguments but '" + kernel.function + "' takes " + std::to_string(kernel.arg_names.size()) +
                        " (were these cases recorded from another kernel?)");
        check_recorded_geometry(kernel.geometry, slot.manifest, kernel.param_defaults, kernel.arg_names);
        for (const CaseBuffer& b : slot.manifest.buffers) slot.bytes += b.size;
        for (std::size_t b = 0; b < slot.manifest.buffers.size(); ++b)
            slot.tolerances.push_back(to_string(kernel.tolerance.for_names(tolerance_names(slot.manifest, b, kernel.arg_names))));
        set.slots.push_back(std::move(slot));
    }
}

// The error for a folder without cases of `recorded`: which names it holds cases of, if any.
Error no_cases_of(const fs::path& dir, const std::string& option, const std::string& recorded) {
    std::vector<std::string> names;
    for (const fs::path& path : list_test_cases(dir)) {
        const std::string name = read_test_case(path, CaseLoad::ManifestOnly).kernel;
        if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
    std::string held;
    for (const std::string& name : names) held += (held.empty() ? "'" : ", '") + excerpt(name) + "'";
    return Error(dir.string() + " (" + option + "): no recorded test cases for '" + recorded + "'" +
                 (names.empty() ? " (run the program with GI_RECORD_DIR=" + dir.string() + ")"
                                : "; it holds cases recorded as " + held +
                                      " (pass --recorded-name NAME when the program names its gi::launch so)"));
}

}  // namespace

NameValues CaseKernel::params_of(const Genome& genome) const {
    MacroTable macros = file_macros;
    for (const auto& [name, text] : param_texts) macros[name] = text;  // a parameter under #ifndef, or -D only
    for (const GeneSetting& s : genome.settings)
        if (param_texts.count(s.name)) macros[s.name] = s.value;
    NameValues values = integer_macros(macros);
    for (const GeneSetting& s : genome.settings) {
        const auto text = param_texts.find(s.name);
        if (text == param_texts.end() || values.count(s.name)) continue;
        if (integer_macros({{s.name, text->second}}).count(s.name))
            throw Error("gene " + s.name + "=" + s.value + " is not an integer, so it cannot size the launch");
    }
    return values;
}

ResolvedGeometry CaseKernel::geometry_of(const TestCase& tc, const Genome& genome) const {
    ResolvedGeometry g = resolve_geometry(geometry, tc, params_of(genome), arg_names);
    for (const GeneSetting& s : genome.settings) {
        if (!coarsen_genes.count(s.name)) continue;
        const std::uint32_t factor = s.value == "2" ? 2 : s.value == "4" ? 4 : 1;
        g.grid.x = (g.grid.x + factor - 1) / factor;
    }
    return g;
}

void CaseKernel::read_names(const Grammar& grammar) {
    for (const Gene& gene : grammar.genes) {
        if (gene.kind == GeneKind::Param) param_texts[gene.name] = gene.default_value;
        if (gene.kind == GeneKind::Coarsen) coarsen_genes.insert(gene.name);
    }
    file_macros = grammar.file_macros;
    param_defaults = params_of(Genome{});
}

std::string CaseKernel::instance_of(const Genome& genome) const {
    // A registration whose template argument is a parameter ("MatrixMulCUDA<TILE>", PARAMS TILE):
    // each variant compiles and runs the instantiation its own value names.
    if (registered.empty() || with_template_arguments(registered, param_texts) == registered) return "";
    std::map<std::string, std::string> values = param_texts;
    for (const GeneSetting& setting : genome.settings)
        if (values.count(setting.name)) values[setting.name] = setting.value;
    return with_template_arguments(registered, values);
}

CaseSet read_case_set(const CudaEvaluatorOptions& options, const CaseKernel& kernel) {
    if (options.cases.empty()) throw UsageError("--cases: the cuda evaluator needs a folder of recorded test cases");
    const std::string recorded = options.recorded_name.empty() ? kernel.function : options.recorded_name;
    CaseSet set;
    add_cases(set, kernel, recorded, options.cases, false, false);
    set.training = static_cast<int>(set.slots.size());
    if (set.training == 0) throw no_cases_of(options.cases, "--cases", recorded);
    // Nothing is shipped without validation on inputs search never saw: without a held-out folder,
    // the last recorded cases (in recording order) are kept for it.
    int set_aside = options.set_aside;
    if (set_aside < 0) set_aside = options.held_out.empty() && set.training >= 2 ? std::max(1, set.training / 4) : 0;
    if (set_aside >= set.training)
        throw UsageError("--set-aside " + std::to_string(set_aside) + " would leave no training case of the " +
                         std::to_string(set.training) + " in " + options.cases.string());
    if (set_aside > 0) {
        std::string names;
        for (int index = set.training - set_aside; index < set.training; ++index) {
            set.slots[index].held_out = true;
            names += (names.empty() ? "" : ", ") + set.slots[index].path.filename().string();
        }
        std::cerr << "gi-tool: note: " << set_aside << " of the " << set.training << " recorded cases (" << names
                  << ") are set aside to validate the result; search uses the other " << set.training - set_aside
                  << (options.held_out.empty() ? " (give --held-out cases, or --set-aside 0 to search on all)" : "") << "\n";
        set.training -= set_aside;
    }
    if (!options.held_out.empty()) {
        // Without its cases the result would ship unvalidated: no training case is set aside then.
        const std::size_t before = set.slots.size();
        add_cases(set, kernel, recorded, options.held_out, true, false);
        if (set.slots.size() == before) throw no_cases_of(options.held_out, "--held-out", recorded);
    }
    if (!options.sanitize_cases.empty()) {
        // Kept out of search like held-out cases (the winner is validated on them too); the oracle
        // gate checks that they reproduce, as every case.
        const std::size_t before = set.slots.size();
        add_cases(set, kernel, recorded, options.sanitize_cases, true, true);
        if (set.slots.size() == before) throw no_cases_of(options.sanitize_cases, "--sanitize-cases", recorded);
    }
    return set;
}

}  // namespace gi
