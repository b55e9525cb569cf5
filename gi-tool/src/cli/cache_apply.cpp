#include "cli/cache_apply.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "cache/check.hpp"
#include "cache/entry.hpp"
#include "cache/files.hpp"
#include "cache/generate.hpp"
#include "cache/ptx_manifest.hpp"
#include "cache/registration.hpp"
#include "cli/args.hpp"
#include "cli/cache_options.hpp"
#include "cli/command.hpp"
#include "cli/help_text.hpp"
#include "cli/kernel_args.hpp"
#include "genome/genome.hpp"
#include "grammar/macro_reach.hpp"
#include "ptx/ptx_edit.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/output_path.hpp"
#include "util/text_rule.hpp"
#include "variant/compose.hpp"

namespace gi::cli {
namespace {

namespace fs = std::filesystem;

const char* const kAnd = "--and";

// One registered kernel of the file, with what the build writes for it.
struct Registered {
    RegisteredKernel kernel;
    fs::path cache_dir;
    fs::path header;
    std::string identifier;  // "partial_sums", for file names and the header's C names
    std::string name;        // "partial_sums", for people ("a+b" for a registration of two)
    std::vector<ArchitectureChoice> choices;  // per architecture, for its header
};

// The argument lists between the "--and" separators.
std::vector<std::vector<std::string>> split_registrations(const std::vector<std::string>& argv) {
    std::vector<std::vector<std::string>> groups(1);
    for (const std::string& word : argv) {
        if (word == kAnd)
            groups.emplace_back();
        else
            groups.back().push_back(word);
    }
    return groups;
}

// What an entry's check says, as the variant of one registration or its original code.
struct CheckedEntry {
    EntryCheck check;
    std::optional<Genome> genome;  // when valid
};

// Param and guard genes the genome sets away from the default: the macros the variant changes.
std::vector<std::string> changed_macros(const Genome& genome, const Grammar& grammar) {
    std::vector<std::string> names;
    for (const Gene& gene : grammar.genes)
        if ((gene.kind == GeneKind::Param || gene.kind == GeneKind::Guard) &&
            setting_or(genome, gene.name, gene.default_value) != gene.default_value)
            names.push_back(gene.name);
    return names;
}

// Why the variant's macro changes may not be used with the other registrations: they reach a
// function outside the registration's own ones, which its evolution never ran. "" when none.
std::string macro_conflict(const Genome& genome, const RegisteredKernel& kernel) {
    const std::vector<std::string> macros = changed_macros(genome, kernel.grammar);
    if (macros.empty()) return "";
    for (const std::string& reached : functions_reached_by_macros(kernel.source, macros)) {
        const bool own = std::any_of(kernel.grammar.functions.begin(), kernel.grammar.functions.end(),
                                     [&](const Function& f) { return f.name == reached; });
        if (!own) {
            std::string settings;
            for (const std::string& m : macros)
                settings += (settings.empty() ? "" : " ") + m + "=" + setting_or(genome, m, "");
            return "its " + settings + " would change '" + reached +
                   "' too, which its evolution did not run (leave " + join(macros, ", ") +
                   " out of its PARAMS, or give the other kernel a macro of its own)";
        }
    }
    return "";
}

std::string origin_of(const EntryCheck& check) {
    std::string origin = check.path.string() + ", " + provenance_line(check.entry->provenance);
    if (check.entry->provenance.speedup() > 0) origin += ", " + std::to_string(check.entry->provenance.speedup()) + "x";
    return origin;
}

void say_variant(const std::string& name, int arch, const EntryCheck& check) {
    // Entry text is printable()d: an escape sequence in it could erase the NOT VALIDATED warning.
    std::cout << "gi-optimize: " << name << " " << architecture_name(arch) << ": variant from " << printable(check.path.string())
              << ": " << (check.entry->genome.empty() ? "(empty genome)" : printable(check.entry->genome));
    if (!check.entry->provenance.waiver.empty())
        std::cout << "; NOT VALIDATED, used because its writer opted in: " << printable(check.entry->provenance.waiver);
    std::cout << "\n";
}

// (architecture index, registration index) -> why that variant is not used.
using HostRefusals = std::map<std::pair<std::size_t, std::size_t>, std::string>;

// Variants host code forbids. The host pass compiles the file once, with the first variant's
// macros, for every architecture: host code that sizes a launch from a #define a variant changes
// would launch another architecture's kernel (the original, or another variant) with the wrong
// geometry (found building tests/programs/convolutionSeparable for 80 and 90 with a variant for 90
// only). So a macro the file's host code reads must have one value on every architecture the
// target compiles; a variant that would break that is left out, its architecture keeping the
// original kernel.
HostRefusals host_macro_refusals(const std::vector<Registered>& registered, const std::vector<int>& architectures,
                                 const std::vector<int>& also_compiled,
                                 const std::vector<std::vector<EntryCheck>>& all_checks) {
    HostRefusals refusals;
    for (std::size_t i = 0; i < registered.size(); ++i) {
        const RegisteredKernel& kernel = registered[i].kernel;
        std::vector<std::optional<Genome>> genomes;  // per architecture; none: the original
        std::vector<std::string> changed;
        for (std::size_t a = 0; a < architectures.size(); ++a) {
            const EntryCheck& check = all_checks[a][i];
            genomes.emplace_back();
            if (check.status != EntryStatus::Valid) continue;
            genomes.back() = parse_genome(check.entry->genome);
            for (const std::string& m : changed_macros(*genomes.back(), kernel.grammar))
                if (std::find(changed.begin(), changed.end(), m) == changed.end()) changed.push_back(m);
        }
        if (changed.empty()) continue;
        // Changed macro -> the first line host code reads it, directly or through a macro defined
        // from it (host code reading HALF, `#define HALF (WIDTH / 2)`, reads a tuned WIDTH).
        std::map<std::string, int> host_line;
        for (const std::string& m : changed)
            if (const std::vector<MacroUse> uses = host_uses_of_macros(kernel.source, {m}); !uses.empty())
                host_line.emplace(m, uses.front().line);
        for (const auto& [macro, line] : host_line) {
            const Gene* gene = kernel.grammar.find_gene(macro);
            if (!gene) continue;
            std::vector<std::string> values;  // per architecture, then the also-compiled ones
            for (const std::optional<Genome>& g : genomes)
                values.push_back(g ? setting_or(*g, macro, gene->default_value) : gene->default_value);
            for (std::size_t k = 0; k < also_compiled.size(); ++k) values.push_back(gene->default_value);
            if (std::all_of(values.begin(), values.end(), [&](const std::string& v) { return v == values.front(); }))
                continue;
            for (std::size_t a = 0; a < architectures.size(); ++a) {
                if (values[a] == gene->default_value || refusals.count({a, i})) continue;
                std::vector<std::string> others;
                for (std::size_t b = 0; b < values.size(); ++b)
                    if (values[b] != values[a])
                        others.push_back(architecture_name(b < architectures.size() ? architectures[b]
                                                                                    : also_compiled[b - architectures.size()]) +
                                         " " + macro + "=" + values[b]);
                refusals[{a, i}] = "its " + macro + "=" + values[a] + " is read by host code of " + kernel.source.name +
                                   " (line " + std::to_string(line) + "), which is compiled once for every architecture, "
                                   "and the target also compiles " + join(others, ", ") +
                                   ": the host would launch those with this variant's value (evolve every architecture "
                                   "to the same value, or size launches from the generated header's parameters)";
            }
        }
    }
    return refusals;
}

}  // namespace

int run_cache_apply(const std::vector<std::string>& argv, const std::string& program) {
    const std::vector<std::vector<std::string>> groups = split_registrations(argv);
    const std::vector<std::string> own = {"--grid", "--tolerance", "--arch", "--also-compiled", "--cache-dir", "--wrapper", "--header",
                                          "--options-file"};
    const Args args(groups.front(), with(kernel_value_options(), own),
                    with(kernel_switch_options(), {"--help", "--require", "--ptx-edits"}));
    if (args.has("--help")) {
        std::cout << "usage: " << program << " KERNEL.cu --function NAME [options] --cache-dir DIR --arch ARCH...\n"
                  << std::string(program.size() + 8, ' ') << "--wrapper OUT.cu --header OUT.h --options-file OUT.options [--require]\n"
                  << std::string(program.size() + 8, ' ')
                  << "[--and --function NAME [registration options] [--cache-dir DIR] --header OUT.h]...\n"
                     "  What the CMake module runs at build time. For each architecture, checks its cache entry\n"
                     "  and writes next to OUT.cu the file <function>.sm_N.cu: the variant rebuilt from the cached\n"
                     "  genome and this kernel, or (entry missing, stale or invalid) an #include of the original\n"
                     "  kernel, with one line saying why. OUT.cu includes one of them per nvcc pass (__CUDA_ARCH__);\n"
                     "  OUT.h tells host code which variant runs and its parameter values. OUT.options holds the\n"
                     "  variants' compile options (from flag genes) for nvcc --options-file: one file is compiled\n"
                     "  once, so a variant whose options differ from the first variant's is not used. Unchanged\n"
                     "  files are not rewritten. --require: any entry that is not valid is an error (exit 1).\n"
                     "  --and: another registered kernel of the same file (its own registration, cache folder\n"
                     "  (default: the first one's) and header). Their variants are put together in one file\n"
                     "  (<a>+<b>.sm_N.cu), in the order given; a variant is left out, with the reason, where it\n"
                     "  overlaps an earlier one, where a #define it changes reaches another registration's code,\n"
                     "  or where its compile options are not the whole file's.\n"
                     "  --ptx-edits: the build compiles the wrapper through `gi-tool nvcc-launcher`, which applies\n"
                     "  PTX edits: a variant whose genome has them is used (one registration per file). Beside\n"
                     "  OUT.cu: each architecture's <function>.sm_N.ptx-edits (its genome; empty without PTX\n"
                     "  edits), <function>.ptx-edits (the list of edited architectures), <function>.fallback.gi.cu\n"
                     "  and .fallback.options (those architectures compiling the original kernel: what the\n"
                     "  launcher compiles when the edits cannot be applied).\n"
                     "  Without it such a variant is left out, saying why.\n"
                     "  Host code is compiled once for all architectures: a variant that changes a #define which\n"
                     "  the file's host code reads is used only where every architecture the target compiles\n"
                     "  (--arch, and --also-compiled N: those without a registration, which compile the original)\n"
                     "  gets the same value; otherwise that architecture keeps the original kernel, saying why.\n"
                     "  Each --arch and --also-compiled is written "
                  << kArchitectureSpellings << ".\n\n"
                  << kernel_options_help() << kRegistrationHelp
                  << "\nexample:\n  " << program << " kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64,128 \\\n"
                     "      --cache-dir gi-cache --arch 80 --arch 90 --wrapper build/gi/stereo_kernel.gi.cu \\\n"
                     "      --header build/gi/stereo_kernel.gi.h --options-file build/gi/stereo_kernel.options\n";
        return kExitOk;
    }
    const std::vector<int> architectures = architectures_from(args.values("--arch"));
    if (architectures.empty()) throw UsageError("--arch N is required (each architecture the target compiles for)");
    const std::vector<int> also_compiled = architectures_from(args.values("--also-compiled"), "--also-compiled");
    const fs::path wrapper = args.required("--wrapper");
    const fs::path options_file = args.required("--options-file");
    const std::string kernel_path = kernel_path_from(kernel_settings_from(args));
    const bool require = args.has("--require");
    const bool ptx_switch = args.has("--ptx-edits");

    std::vector<Registered> registered;
    const std::vector<std::string> group_options = {"--function", "--param", "--flag", "--block-size", "--grid",
                                                    "--tolerance", "--cache-dir", "--header"};
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::string which = g == 0 ? std::string() : "registration " + std::to_string(g + 1) + " (after --and): ";
        std::optional<Args> group_args;
        if (g > 0) {
            try {
                group_args.emplace(groups[g], group_options, kernel_switch_options());
            } catch (const UsageError& e) {
                throw UsageError(which + e.what() + " (the options of the whole file, --arch, --wrapper, --options-file, "
                                 "--require, -I, -D and --compile-option, go before the first --and)");
            }
            if (!group_args->positional().empty())
                throw UsageError(which + "'" + group_args->positional().front() +
                                 "': the kernel file is given once, before the first --and");
        }
        const Args& a = g == 0 ? args : *group_args;
        Registered r;
        try {
            r.kernel = registered_kernel_from(kernel_settings_from(a), registration_settings_from(a), kernel_path);
        } catch (const UsageError& e) {
            throw UsageError(which + e.what());
        }
        r.cache_dir = a.value("--cache-dir").value_or(args.required("--cache-dir"));
        r.header = a.value("--header").value_or("");
        if (r.header.empty()) throw UsageError(which + "--header OUT.h is required");
        r.identifier = registration_identifier(r.kernel.registration.functions);
        r.name = join(r.kernel.registration.functions, "+");
        for (const Registered& earlier : registered)
            if (earlier.identifier == r.identifier)
                throw UsageError(which + "the kernel " + r.name + " is given twice");
        registered.push_back(std::move(r));
    }
    const bool several = registered.size() > 1;
    std::string file_identifier;  // "partial_sums+final_sum" when several
    std::string file_name;
    for (const Registered& r : registered) {
        file_identifier += (file_identifier.empty() ? "" : "+") + r.identifier;
        file_name += (file_name.empty() ? "" : ", ") + r.name;
    }
    const std::string original_include = fs::absolute(kernel_path).lexically_normal().string();
    const std::string original_text = registered.front().kernel.source.text;
    {
        // Nothing the build generates may replace the kernel or an entry, nor two outputs one file.
        OutputGuard guard;
        guard.keep(kernel_path, "the kernel file");
        for (const Registered& r : registered) guard.keep_cache_folder(r.cache_dir);
        guard.check("--wrapper", wrapper, "the wrapper");
        guard.check("--options-file", options_file, "the compile options");
        for (const Registered& r : registered) guard.check("--header", r.header, "the header");
        for (const int arch : architectures) {
            guard.check("the variant file beside --wrapper:",
                        wrapper.parent_path() / (file_identifier + "." + architecture_name(arch) + ".cu"),
                        "the variant", "choose another folder for --wrapper");
            if (ptx_switch)
                guard.check("the PTX edits file beside --wrapper:", wrapper.parent_path() / ptx_genome_file(file_identifier, arch),
                            "the genome", "choose another folder for --wrapper");
        }
        if (ptx_switch) {
            const PtxEditsFiles files = ptx_edits_files(wrapper, file_identifier);
            guard.check("the PTX edits list beside --wrapper:", files.manifest, "the list", "choose another folder for --wrapper");
            guard.check("the fallback wrapper beside --wrapper:", files.fallback_wrapper, "the fallback wrapper",
                        "choose another folder for --wrapper");
            guard.check("the fallback options beside --wrapper:", files.fallback_options, "the fallback options",
                        "choose another folder for --wrapper");
        }
    }

    std::vector<ArchitectureChoice> choices;  // the wrapper's: the file's variant per architecture
    std::vector<std::pair<std::string, int>> missing;  // (registration, architecture) without an entry
    std::string missing_summary;
    bool all_valid = true;
    std::optional<std::vector<std::string>> compile_options;  // of the first variant used
    std::vector<std::vector<EntryCheck>> all_checks;  // [architecture][registration]
    std::vector<std::string> ptx_manifest_lines;      // per architecture whose variant has PTX edits
    std::vector<bool> ptx_edited(architectures.size(), false);
    std::vector<std::vector<std::string>> arch_options(architectures.size());  // of each architecture's variant
    for (const int arch : architectures) {
        all_checks.emplace_back();
        for (Registered& r : registered)
            all_checks.back().push_back(
                check_cache_entry(r.cache_dir / cache_entry_file_name(r.kernel.registration.functions, arch), r.kernel, arch));
    }
    const HostRefusals host_refusals = host_macro_refusals(registered, architectures, also_compiled, all_checks);
    for (std::size_t a = 0; a < architectures.size(); ++a) {
        const int arch = architectures[a];
        std::vector<EntryCheck>& checks = all_checks[a];
        for (EntryCheck& check : checks) {
            // An entry keeps a genome's PTX edits (cache verify --compile replays them), but the
            // wrapper is compiled from source: its variant without them is not what was evolved.
            if (check.status == EntryStatus::Valid)
                if (const std::string why = ptx_edits_refusal(parse_genome(check.entry->genome)); !why.empty()) {
                    const std::string blocker = ptx_switch ? ptx_edits_blocker(several, check.variant->compile_options) : why;
                    if (!blocker.empty()) {
                        check.status = EntryStatus::Invalid;
                        check.reasons.push_back("the genome: " + blocker);
                    }
                }
            if (check.status == EntryStatus::Valid && !several && compile_options &&
                *compile_options != check.variant->compile_options) {
                check.status = EntryStatus::Invalid;
                check.reasons.push_back("its compile options (" + join(check.variant->compile_options, " ") +
                                        ") differ from the first variant's (" + join(*compile_options, " ") +
                                        "); the wrapper is compiled once, with one set of options");
            }
        }

        // Put the registrations' variants together (one registration: its variant as it is).
        std::string file_text;
        std::vector<std::string> used_options;
        std::vector<bool> used(registered.size(), false);
        std::vector<std::string> left_out(registered.size());
        if (!several) {
            if (checks[0].status == EntryStatus::Valid && host_refusals.count({a, 0})) {
                left_out[0] = host_refusals.at({a, 0});
            } else if (checks[0].status == EntryStatus::Valid) {
                used[0] = true;
                file_text = checks[0].variant->source;
                used_options = checks[0].variant->compile_options;
            }
        } else {
            std::vector<VariantPart> parts;
            for (std::size_t i = 0; i < registered.size(); ++i) {
                VariantPart part;
                part.name = registered[i].name;
                if (checks[i].status == EntryStatus::Valid && !host_refusals.count({a, i})) {
                    const Genome genome = parse_genome(checks[i].entry->genome);
                    part.has_variant = true;
                    part.genome_text = checks[i].entry->genome.empty() ? "(empty genome)" : checks[i].entry->genome;
                    part.changes = variant_changes(genome, registered[i].kernel.grammar);
                    part.compile_options = checks[i].variant->compile_options;
                    part.macro_conflict = macro_conflict(genome, registered[i].kernel);
                }
                parts.push_back(std::move(part));
            }
            const ComposedVariant composed = compose_variants(original_text, parts);
            used = composed.used;
            left_out = composed.left_out;
            for (std::size_t i = 0; i < registered.size(); ++i)
                if (host_refusals.count({a, i})) left_out[i] = host_refusals.at({a, i});
            if (std::find(used.begin(), used.end(), true) != used.end()) {
                file_text = composed.source;
                used_options = composed.compile_options;
            }
            if (compile_options && file_text.size() && used_options != *compile_options) {
                // The wrapper is compiled once, so every architecture's variant needs the same options.
                for (std::size_t i = 0; i < used.size(); ++i)
                    if (used[i]) {
                        used[i] = false;
                        left_out[i] = "the file's compile options with it (" + join(used_options, " ") +
                                      ") differ from those of the first architecture's variant (" +
                                      join(*compile_options, " ") + "); the wrapper is compiled with one set of options";
                    }
                file_text.clear();
            }
        }

        // A registration that compiles its original kernel for `arch`: an error under --require.
        auto say_original = [&](const std::string& name, const std::string& why) {
            (require ? std::cerr : std::cout) << "gi-optimize: " << name << " " << architecture_name(arch) << ": "
                                              << (require ? "error" : "original kernel") << ": " << printable(why) << "\n";
        };
        ArchitectureChoice file_choice;
        file_choice.architecture = arch;
        file_choice.variant_file = file_identifier + "." + architecture_name(arch) + ".cu";
        std::vector<std::string> origins;
        for (std::size_t i = 0; i < registered.size(); ++i) {
            Registered& r = registered[i];
            const EntryCheck& check = checks[i];
            ArchitectureChoice choice;
            choice.architecture = arch;
            choice.variant_file = file_choice.variant_file;
            const std::string label = several ? r.name + ": " : "";
            if (used[i]) {
                choice.use_variant = true;
                choice.genome = check.entry->genome;
                choice.parameters = check.entry->parameters;
                choice.origin = origin_of(check);
                say_variant(r.name, arch, check);
            } else if (check.status == EntryStatus::Valid) {
                // A valid entry that cannot be combined with the others: its kernel stays original.
                all_valid = false;
                choice.origin = "valid cache entry " + check.path.string() + " left out: " + left_out[i];
                say_original(r.name, "the variant of " + check.path.string() + " is left out: " + left_out[i]);
            } else if (check.status == EntryStatus::Missing && !require) {
                all_valid = false;
                choice.origin = to_string(check.status) + " cache entry " + check.path.string();
                if (missing.empty()) missing_summary = check.summary();
                missing.emplace_back(r.name, arch);  // routine: one line for all of them, after the loop
            } else {
                all_valid = false;
                choice.origin = to_string(check.status) + " cache entry " + check.path.string();
                say_original(r.name, check.summary());
            }
            origins.push_back(label + (choice.use_variant ? "" : "original kernel, ") + choice.origin);
            if (choice.use_variant) {
                file_choice.use_variant = true;
                file_choice.genome += (file_choice.genome.empty() ? "" : "; ") + label + choice.genome;
            }
            r.choices.push_back(std::move(choice));
        }
        file_choice.origin = join(origins, "; ");
        if (file_choice.use_variant) {
            if (!compile_options) compile_options = used_options;
        } else {
            std::string why = several ? "no registration of the file has a variant to use" : checks[0].summary();
            file_text = "// gi-optimize: " + architecture_name(arch) + " compiles the original kernel: " + comment_text(why) +
                        "\n" + include_directive(original_include);
        }
        write_file_if_changed(wrapper.parent_path() / file_choice.variant_file, file_text);
        if (ptx_switch) {
            // Written for every architecture (empty: no PTX edits there), so the build can name it as
            // an output and recompile the wrapper when an entry's PTX edits change.
            const std::string genome_file = ptx_genome_file(file_identifier, arch);
            std::string genome_text;
            if (!several && file_choice.use_variant) {  // several: their PTX edits were refused above
                const CheckedVariantView view{checks[0].entry->genome, registered.front().kernel.registration.functions.front(),
                                              file_choice.variant_file, checks[0].variant->compile_options};
                if (!ptx_edits_of(parse_genome(view.genome)).empty()) {
                    ptx_edited[a] = true;
                    file_choice.ptx_edits = true;
                    registered.front().choices.back().ptx_edits = true;
                    genome_text = view.genome + "\n";
                    ptx_manifest_lines.push_back(ptx_manifest_line(arch, view, genome_file));
                }
            }
            write_file_if_changed(wrapper.parent_path() / genome_file, genome_text);
        }
        arch_options[a] = used_options;
        choices.push_back(std::move(file_choice));
    }
    if (missing.size() == 1) {
        std::cout << "gi-optimize: " << missing[0].first << " " << architecture_name(missing[0].second)
                  << ": original kernel: " << printable(missing_summary) << "\n";
    } else if (!missing.empty()) {
        for (const Registered& r : registered) {
            std::string shown;
            for (const auto& [name, arch] : missing)
                if (name == r.name) shown += (shown.empty() ? "" : ", ") + architecture_name(arch);
            if (!shown.empty())
                std::cout << "gi-optimize: " << r.name << " " << shown << ": original kernel: no cache entries in "
                          << printable(r.cache_dir.string()) << "\n";
        }
    }
    if (!all_valid && require) {
        std::cerr << "gi-optimize: GI_REQUIRE_CACHE is on: every architecture needs a valid cache entry (evolve on a GPU "
                     "and commit the entry, or turn GI_REQUIRE_CACHE off to build with the original kernel)\n";
        return kExitFailure;
    }
    std::string options_text;
    for (const std::string& option : compile_options.value_or(std::vector<std::string>{})) options_text += option + "\n";
    write_file_if_changed(options_file, options_text);
    write_file_if_changed(wrapper, wrapper_source(file_name, original_include, choices, file_identifier));
    if (ptx_switch) {
        // What the launcher compiles when the PTX edits cannot be applied: those architectures'
        // original kernel, with the options of the first variant left (the wrapper is compiled once).
        std::vector<ArchitectureChoice> fallback = choices;
        std::optional<std::vector<std::string>> fallback_options;
        for (std::size_t a = 0; a < fallback.size(); ++a) {
            if (ptx_edited[a]) {
                fallback[a].use_variant = false;
                fallback[a].ptx_edits = false;
                fallback[a].origin = "its variant's PTX edits could not be applied: " + fallback[a].origin;
            } else if (fallback[a].use_variant && !fallback_options) {
                fallback_options = arch_options[a];
            }
        }
        const PtxEditsFiles files = ptx_edits_files(wrapper, file_identifier);
        std::string fallback_text;
        for (const std::string& option : fallback_options.value_or(std::vector<std::string>{})) fallback_text += option + "\n";
        write_file_if_changed(files.fallback_options, fallback_text);
        write_file_if_changed(files.fallback_wrapper, wrapper_source(file_name, original_include, fallback, file_identifier, true));
        write_file_if_changed(files.manifest, join(ptx_manifest_lines, ""));
    }
    for (const Registered& r : registered)
        write_file_if_changed(r.header, variants_header(r.identifier, r.name, r.kernel.grammar, r.choices));
    return kExitOk;
}

}  // namespace gi::cli
