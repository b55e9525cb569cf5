// `gi-tool cache show|verify|write|apply`: the per-architecture cache of winning genomes. Everything
// here works without a GPU; the CMake module calls `cache apply` at build time.
#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cache/check.hpp"
#include "cache/entry.hpp"
#include "cache/files.hpp"
#include "cache/generate.hpp"
#include "cache/registration.hpp"
#include "run/run_result.hpp"
#include "cli/cache_apply.hpp"
#include "cli/cache_options.hpp"
#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cli/help_text.hpp"
#include "cli/kernel_args.hpp"
#include "compile/cubin_sections.hpp"
#include "compile/device_images.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/ptx_compiler.hpp"
#include "cuda/nvcc_ptx_edits.hpp"
#include "ptx/ptx_edit.hpp"
#include "ptx/ptx_module.hpp"
#include "report/cache_page.hpp"
#include "genome/genome.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"
#include "util/output_path.hpp"
#include "util/text_rule.hpp"
#include "process/process.hpp"

namespace gi::cli {
namespace {

// A program the build made, read whole for its device images (cache verify --program).
constexpr std::size_t kMaxProgramBytes = std::size_t{1} << 30;

namespace fs = std::filesystem;

std::string format_ms(double ms) {
    if (ms < 0) return "not measured";
    std::ostringstream out;
    out.precision(4);
    out << ms << " ms";
    return out.str();
}

// Every field is printable()d: `cache show` is the review step, and an escape sequence in a note
// could erase the UNCHECKED line from the reviewer's screen.
void print_entry(std::ostream& out, const CacheEntry& e, bool checksum_ok) {
    const Provenance& p = e.provenance;
    const auto list = [](const std::vector<std::string>& items, const std::string& separator) {
        return printable(join(items, separator));
    };
    out << "  kernel       " << printable(e.kernel_file) << "  " << list(e.registration.functions, " ") << "  "
        << architecture_name(e.architecture) << "\n"
        << "  genome       " << (e.genome.empty() ? "(empty: the original kernel)" : printable(e.genome)) << "\n";
    std::vector<std::string> values;
    for (const ParameterValue& v : e.parameters) values.push_back(v.name + "=" + v.value);
    out << "  parameters   " << (values.empty() ? "(none declared)" : list(values, " ")) << "\n"
        << "  provenance   " << printable(provenance_line(p)) << "\n"
        << "  time         original " << format_ms(p.original_ms) << ", variant " << format_ms(p.variant_ms);
    if (p.speedup() > 0) out << " (speedup " << p.speedup() << "x)";
    out << "\n  validated    ";
    if (p.cases_validated < 0) out << "not recorded";
    else out << p.cases_validated << " cases, " << p.elements_validated << " elements, worst error " << p.worst_error;
    out << "\n";
    if (!p.waiver.empty()) out << "  UNCHECKED    " << printable(p.waiver) << "\n";
    else if (!e.genome.empty() && !p.validated())
        out << "  UNCHECKED    not validated and no waiver: the build refuses this entry\n";
    if (!p.note.empty()) out << "  note         " << printable(p.note) << "\n";
    out << "  registration params [" << list(e.registration.params, "; ") << "] flags [" << list(e.registration.flags, "; ")
        << "] block size '" << printable(e.registration.block_size) << "' grid '" << excerpt(e.registration.grid, 200)
        << "' tolerance [" << list(e.registration.tolerance, "; ") << "]\n"
        << "  key          " << printable(e.key.substr(0, 16)) << "... (grammar version " << e.grammar_version
        << ", source sha256 " << printable(e.source_sha256.substr(0, 12)) << "...)\n"
        << "  checksum     " << (checksum_ok ? "ok" : "MISMATCH: edited by hand or damaged; the entry will be refused")
        << "\n";
}

std::vector<fs::path> entry_paths(const std::vector<std::string>& positional) {
    std::vector<fs::path> paths;
    for (const std::string& item : positional) {
        if (fs::is_directory(item)) {
            for (const fs::path& p : list_cache_entries(item)) paths.push_back(p);
        } else if (fs::exists(item)) {
            paths.push_back(item);
        } else {
            throw Error(item + ": no such cache folder or entry file");
        }
    }
    return paths;
}

// ---- show -------------------------------------------------------------------------------------

int run_show(const std::vector<std::string>& argv) {
    std::vector<std::string> items, kernel_files;
    std::string html;
    CommandLine app(
        "usage: gi-tool cache show DIR|ENTRY.xml... [--html FILE.html [--kernel KERNEL.cu]...]\n",
        "  Prints each cache entry: kernel, architecture, genome, parameter values, where it came\n"
        "  from (GPU, driver, nvcc, date), timings and validation, and whether its checksum holds.\n"
        "  Needs no GPU and no kernel source. Exit status 1 when an entry is corrupt or edited.\n",
        "example:\n  gi-tool cache show consumer-example/gi-cache\n"
        "  gi-tool cache show consumer-example/gi-cache --html review.html --kernel kernels/stereo/stereo.cu\n");
    app.add_positionals("DIR|ENTRY.xml", items, "cache folders and entry files");
    app.add_text("--html", html, "FILE", "also writes them as one HTML page, for code review");
    app.add_list("--kernel", kernel_files, "FILE",
             "a kernel source the entries were made from (matched by file name and checksum): the page then shows the "
             "source lines each item changes");
    if (!app.parse(argv)) return kExitOk;
    if (items.empty()) throw UsageError("missing DIR (the cache folder, e.g. gi-cache)");
    if (!kernel_files.empty() && html.empty()) throw UsageError("--kernel only serves the page: give --html FILE too");
    if (!html.empty()) {
        // The page never replaces what it shows: an entry (or a new *.xml among them), a kernel.
        OutputGuard guard;
        for (const std::string& item : items)
            if (fs::is_directory(item)) guard.keep_cache_folder(item);
            else guard.keep(item, "a cache entry it shows");
        for (const std::string& kernel : kernel_files) guard.keep(kernel, "the kernel file");
        guard.check("--html", html, "the page");
    }
    std::vector<std::pair<std::string, std::string>> kernels;  // path, text
    for (const std::string& path : kernel_files) kernels.emplace_back(path, read_source_file(path).text);
    bool all_ok = true;
    const std::vector<fs::path> paths = entry_paths(items);
    if (paths.empty()) std::cout << "no cache entries (*.xml) in " << join(items, ", ") << "\n";
    std::vector<CachePageEntry> page;
    for (const fs::path& path : paths) {
        std::cout << printable(path.string()) << "\n";
        CachePageEntry item;
        item.path = path;
        try {
            const CacheEntry entry = read_cache_entry(path);
            const bool ok = checksum_matches(entry);
            all_ok = all_ok && ok;
            print_entry(std::cout, entry, ok);
            item.entry = entry;
            item.checksum_ok = ok;
            for (const auto& [kernel_path, text] : kernels)
                if (fs::path(kernel_path).filename() == entry.kernel_file) item.view = entry_source_view(entry, kernel_path, text);
        } catch (const Error& error) {
            all_ok = false;
            item.problem = error.what();
            std::cout << "  unreadable: " << printable_message(error.what()) << "\n";
        }
        page.push_back(std::move(item));
    }
    if (!html.empty()) {
        write_file_if_changed(html, cache_page(page, join(items, ", ")));
        std::cout << "wrote " << html << "\n";
    }
    return all_ok ? kExitOk : kExitFailure;
}

// ---- verify -----------------------------------------------------------------------------------

bool compile_variant(const EntryCheck& check, const RegisteredKernel& kernel, const std::string& nvcc) {
    NvccOptions options;
    options.nvcc = nvcc;
    options.arch = architecture_name(check.entry->architecture);
    const fs::path kernel_dir = fs::absolute(kernel.source.path).parent_path();
    options.include_dirs.push_back(kernel_dir.string());
    const NvccCompiler compiler(options);
    TemporaryDirectory scratch("gi-cache-verify");
    const fs::path source = scratch.path() / kernel.source.name;
    write_file_if_changed(source, check.variant->source);
    const CompileOutcome outcome =
        compiler.compile(source, scratch.path() / "variant.cubin", check.variant->compile_options, check.path.string());
    if (outcome.status == CompileOutcome::Status::Ok) {
        std::cout << "  compiled for " << options.arch << " with nvcc in " << outcome.seconds << " s\n";
        return true;
    }
    std::cout << "  does not compile for " << options.arch << ": " << printable_message(outcome.first_errors) << "\n";
    return false;
}

// A genome's PTX edits replayed as the cuda evaluator built the variant (issue 46): nvcc's PTX of
// its source (ptx_as_evaluated: NVRTC's where nvcc cannot make it), with the kernel's -D,
// --compile-option and folders and the variant's own options, the edits applied, ptxas alone for
// the entry's architecture.
// With `program` (the path of what the build made, and its bytes): whether it holds that code, as
// a build through gi-tool nvcc-launcher does.
struct BuiltProgram {
    std::string path;
    std::vector<std::string> images;  // its embedded device images
};

bool replay_ptx_edits(const EntryCheck& check, const RegisteredKernel& kernel, const CompileSettings& compile,
                      const std::string& nvcc, const std::optional<BuiltProgram>& program) {
    const std::string arch = architecture_name(check.entry->architecture);
    const std::vector<Edit> edits = ptx_edits_of(parse_genome(check.entry->genome));
    std::vector<std::string> texts;
    for (const Edit& edit : edits) texts.push_back(edit_to_text(edit));
    const std::string shown = "PTX edits (" + join(texts, " ") + ")";
    DeviceCompileRequest request;
    request.source = check.variant->source;
    request.name = kernel.source.name;
    request.options = compile.options;
    request.options.insert(request.options.end(), check.variant->compile_options.begin(), check.variant->compile_options.end());
    request.include_dirs.push_back(fs::absolute(kernel.source.path).parent_path().string());
    request.include_dirs.insert(request.include_dirs.end(), compile.include_dirs.begin(), compile.include_dirs.end());
    request.arch = arch;
    const DeviceCompileResult ptx = ptx_as_evaluated(request, nvcc);
    if (!ptx.ok) {
        std::cout << "  " << shown << " not replayed for " << arch << ": cannot compile the variant for its PTX: "
                  << printable_message(first_error_lines(ptx.log, 3)) << "\n";
        return false;
    }
    PtxEditResult edited;
    try {
        edited = apply_ptx_edits(parse_ptx(ptx.ptx, "the variant's PTX"), edits);
    } catch (const Error& e) {
        std::cout << "  " << shown << " do not apply for " << arch << ": " << printable_message(e.what()) << "\n";
        return false;
    }
    const DeviceCompileResult cubin =
        compile_ptx(edited.ptx, arch, ptxas_options_for(request.options), find_ptxas(nvcc));
    if (!cubin.ok) {
        std::cout << "  " << shown << " applied, but the edited PTX does not assemble for " << arch << ": "
                  << printable_message(cubin.log) << "\n";
        return false;
    }
    std::cout << "  " << shown << " replayed for " << arch << ": " << ptx.compiler << "'s PTX of the variant, edited, assembled by ptxas in "
              << cubin.ms / 1000 << " s\n";
    if (!edited.skipped.empty())
        std::cout << "  note: PTX edits that no longer apply (skipped, as in the search): " << join(edited.skipped, " ") << "\n";
    if (!program) return true;
    for (const std::string& image : program->images)
        if (same_device_code(cubin.cubin, image)) {
            std::cout << "  " << printable(program->path) << " holds this code for " << arch << "\n";
            return true;
        }
    std::cout << "  " << printable(program->path) << " does not hold this code for " << arch << " (of its "
              << program->images.size() << " device images none is it: built without gi-tool nvcc-launcher, or its "
              << "fallback, which the build said)\n";
    return false;
}

int run_verify(const std::vector<std::string>& argv) {
    KernelSettings kernel_settings;
    RegistrationSettings registration;
    std::vector<std::string> positional, arch_options;
    std::string nvcc, program_path;
    bool compile = false;
    CommandLine app(
        "usage: gi-tool cache verify DIR [KERNEL.cu --function NAME [options]] [--arch ARCH...] [--compile [--program FILE]]\n",
        "  Without a kernel: checks that every entry in DIR is well-formed and untouched (checksum).\n"
        "  With the kernel and its registration: also that each entry for it is current (key: kernel\n"
        "  source, registration, grammar version) and that its genome is valid for the kernel and\n"
        "  applies. Exit status 0 when everything checked is valid, 1 otherwise.\n",
        // The second example is the consumer example's whole registration: an entry is current only for
        // the registration it was evolved under (docs/cmake.md, "Evolving by hand", reads it from the build).
        "example:\n  gi-tool cache verify consumer-example/gi-cache\n"
        "  gi-tool cache verify consumer-example/gi-cache kernels/stereo/stereo.cu --function stereo_kernel \\\n"
        "      --param BLOCK_W=16,32,64,128,256 --param ROWS_PER_THREAD=1..18,20,24,30,40,48,60 --param XHALO=0,1 \\\n"
        "      --param DPER=1..4 --param STORE_DISPARITY_PIXEL=0,1,2 --param STORE_MIN_SSD=0,1,2 \\\n"
        "      --param OUT_TYPE=float,int,short --param USE_MUL24=0,1 --flag 'dlcm:-Xptxas -dlcm={ca|cg}' \\\n"
        "      --block-size BLOCK_W,DPER --grid 'ceil(width/(BLOCK_W-10*XHALO)),ceil(height/ROWS_PER_THREAD)' \\\n"
        "      --tolerance disparity:exact --tolerance min_ssd:exact --arch 90 --compile\n");
    // One word: CLI11 2.4 and later refuse a positional name with a space when the command line is built.
    app.add_positionals("DIR", positional, "the cache folder, then KERNEL.cu, the kernel file the entries are for");
    app.add_list("--arch", arch_options, "ARCH",
                 std::string("requires an entry for that architecture: ") + kArchitectureSpellings +
                     " (repeatable; default: check those present)");
    app.add_switch("--compile", compile, "also compile each valid variant with nvcc for its architecture (no GPU needed)");
    app.add_text("--nvcc", nvcc, "PATH", "compiler for --compile (default: nvcc on PATH or /usr/local/cuda)");
    app.add_text("--program", program_path, "FILE",
                 "with --compile: the program (or object) the build made must hold each replayed PTX-edited variant's code");
    app.add_kernel_options(kernel_settings, false);
    app.add_registration_options(registration);
    if (!app.parse(argv)) return kExitOk;
    if (positional.empty()) throw UsageError("missing DIR (the cache folder, e.g. gi-cache)");
    const fs::path dir = positional[0];
    const std::vector<int> required = architectures_from(arch_options);

    if (positional.size() == 1) {
        if (!kernel_settings.functions.empty() || !required.empty() || compile)
            throw UsageError("--function, --arch and --compile need the kernel file: cache verify DIR KERNEL.cu --function NAME ...");
        bool ok = true;
        const std::vector<fs::path> paths = list_cache_entries(dir);
        for (const fs::path& path : paths) {
            try {
                const CacheEntry entry = read_cache_entry(path);
                if (checksum_matches(entry)) {
                    std::cout << printable(path.string()) << ": well-formed, checksum ok (pass the kernel to check its key and genome)\n";
                    continue;
                }
                std::cout << printable(path.string()) << ": invalid: checksum mismatch: the file was edited by hand or damaged\n";
            } catch (const Error& error) {
                std::cout << printable(path.string()) << ": invalid: " << printable_message(error.what()) << "\n";
            }
            ok = false;
        }
        std::cout << paths.size() << " entr" << (paths.size() == 1 ? "y" : "ies") << " checked, "
                  << (ok ? "all well-formed" : "some invalid") << "\n";
        return ok ? kExitOk : kExitFailure;
    }

    if (positional.size() > 2) throw UsageError("expected DIR and one KERNEL.cu, got also '" + positional[2] + "'");
    if (!program_path.empty() && !compile) throw UsageError("--program needs --compile (the code it must hold is the replay's)");
    std::optional<BuiltProgram> program;
    if (!program_path.empty())
        program = BuiltProgram{program_path, embedded_device_images(read_input_file(program_path, kMaxProgramBytes, "program"))};
    const RegisteredKernel kernel = registered_kernel_from(kernel_settings, registration, positional[1]);

    std::vector<int> architectures = required;
    if (architectures.empty()) {
        const std::string prefix = join(kernel.registration.functions, "+") + ".sm_";
        for (const fs::path& path : list_cache_entries(dir)) {
            const std::string name = path.filename().string();
            if (name.rfind(prefix, 0) != 0) continue;
            const std::string arch = name.substr(prefix.size(), name.size() - prefix.size() - 4);
            try {
                architectures.push_back(parse_architecture(arch, path.string()));
            } catch (const UsageError&) {
                std::cout << path.string() << ": invalid: the file name does not end in .sm_NN.xml\n";
                return kExitFailure;
            }
        }
        if (architectures.empty()) {
            std::cout << "no cache entries for " << join(kernel.registration.functions, "+") << " in " << dir.string() << "\n";
            return kExitFailure;
        }
    }

    bool ok = true;
    for (const int arch : architectures) {
        const EntryCheck check = check_cache_entry(dir / cache_entry_file_name(kernel.registration.functions, arch), kernel, arch);
        std::cout << printable_message(check.summary()) << "\n";
        if (check.status != EntryStatus::Valid) {
            ok = false;
            continue;
        }
        if (!check.variant->skipped_edits.empty())
            std::cout << "  note: edits that no longer apply (skipped, as in the search): "
                      << printable(join(check.variant->skipped_edits, " ")) << "\n";
        if (compile && !compile_variant(check, kernel, nvcc)) ok = false;
        if (!ptx_edits_of(parse_genome(check.entry->genome)).empty()) {
            if (compile && !replay_ptx_edits(check, kernel, compile_settings_from(kernel_settings), nvcc, program)) ok = false;
            std::cout << "  note: " << printable(ptx_edits_refusal(parse_genome(check.entry->genome)))
                      << "; elsewhere the build leaves this entry out" << (compile ? "" : " (--compile replays them)") << "\n";
        }
    }
    return ok ? kExitOk : kExitFailure;
}

// ---- write ------------------------------------------------------------------------------------

std::string utc_now() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

int run_write(const std::vector<std::string>& argv) {
    KernelSettings kernel_settings;
    RegistrationSettings registration;
    std::vector<std::string> arch_options;
    std::string cache_dir_text, genome_text, from_run;
    bool allow_unvalidated = false, allow_unfinished = false;
    Provenance given_provenance;  // the provenance options, applied over the run's
    CommandLine app(
        "usage: gi-tool cache write KERNEL.cu --function NAME [options] --arch ARCH --cache-dir DIR\n"
        "                          (--from-run RUN_DIR | --genome \"...\") [provenance options]\n",
        "  Writes DIR/<function>.sm_N.xml: the genome (validated against the kernel first), the key\n"
        "  of the kernel as registered, the parameter values and provenance, sealed by a checksum.\n"
        "  --from-run takes RUN_DIR/best.genome from 'gi-tool evolve --out RUN_DIR' and the timings and\n"
        "  held-out validation from its run.xml; --genome takes a genome chosen by a person (origin\n"
        "  'hand-picked' unless --origin says else).\n"
        "  Nothing unchecked is written by default: a run whose final check failed is refused; a run\n"
        "  that did not finish, or whose genome was not validated on held-out inputs, and a hand-picked\n"
        "  genome without --cases/--elements, are refused unless you opt in (--allow-unvalidated,\n"
        "  --allow-unfinished). The opt-in is recorded in the entry (provenance <waiver>), shown by\n"
        "  'cache show', and the build uses such an entry only because of it. An empty genome (the\n"
        "  original) needs neither.\n",
        "example:\n  gi-tool cache write kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64,128 \\\n"
        "      --arch 90 --cache-dir gi-cache --from-run build/gi-run\n");
    app.add_list("--arch", arch_options, "ARCH",
                 std::string("the architecture the genome is for: ") + kArchitectureSpellings + " (once)");
    app.add_text("--cache-dir", cache_dir_text, "DIR", "the cache folder").required();
    app.add_text("--from-run", from_run, "RUN_DIR", "the run folder of 'gi-tool evolve --out RUN_DIR'");
    app.add_text("--genome", genome_text, "TEXT", "a genome chosen by a person");
    app.add_switch("--allow-unvalidated", allow_unvalidated, "keep a genome no held-out validation vouches for");
    app.add_switch("--allow-unfinished", allow_unfinished, "keep the best genome of a run that stopped before its final checks");
    app.add_kernel_options(kernel_settings);
    app.add_registration_options(registration);
    const std::string group = "provenance options (recorded, not checked; they override the run record's)";
    Provenance& g = given_provenance;
    app.add_text("--origin", g.origin, "TEXT", "where the genome came from").group(group);
    app.add_text("--gpu", g.gpu, "NAME", "the GPU it was evolved on").group(group);
    app.add_text("--driver", g.driver, "VERSION", "the driver").group(group);
    app.add_text("--nvcc-version", g.nvcc, "VERSION", "the nvcc").group(group);
    app.add_text("--note", g.note, "TEXT", "a note (a run's own note is kept after it)").group(group);
    app.add_number("--original-ms", g.original_ms, 0, 1e12, "the original's time", "-").group(group);
    app.add_number("--variant-ms", g.variant_ms, 0, 1e12, "the variant's time", "-").group(group);
    app.add_integer("--cases", g.cases_validated, 0, 1LL << 62, "cases it was validated on", "-").group(group);
    app.add_integer("--elements", g.elements_validated, 0, 1LL << 62, "output elements compared", "-").group(group);
    app.add_number("--worst-error", g.worst_error, 0, 1e300, "the worst error seen", "-").group(group);
    if (!app.parse(argv)) return kExitOk;
    // Provenance text is shown by `cache show` and quoted in generated files: one line of visible
    // characters (util/text_rule.hpp), refused here with the option's name rather than at write.
    for (const auto& [option, text] : {std::pair<const char*, const std::string*>{"--origin", &g.origin}, {"--gpu", &g.gpu},
                                       {"--driver", &g.driver}, {"--nvcc-version", &g.nvcc}, {"--note", &g.note}})
        refuse_control_characters(*text, option, "give it without newlines, escape sequences or other control characters",
                                  true);
    const std::vector<int> architectures = architectures_from(arch_options);
    if (architectures.size() != 1) throw UsageError("--arch N is required once (the architecture the genome is for)");
    const fs::path cache_dir = cache_dir_text;
    const bool has_run = app.given("--from-run");
    if (app.given("--genome") == has_run) throw UsageError("give exactly one of --genome \"...\" and --from-run RUN_DIR");

    Provenance p;
    Genome genome;
    if (has_run) {
        RunWaivers waivers;
        waivers.unvalidated = allow_unvalidated;
        waivers.unfinished = allow_unfinished;
        RunResult run = read_run_result(from_run, waivers);
        genome = parse_genome(run.genome);
        p = std::move(run.provenance);
    } else {
        if (allow_unfinished) throw UsageError("--allow-unfinished applies to --from-run only");
        genome = parse_genome(genome_text);
        p.origin = "hand-picked";
    }
    if (app.given("--origin")) p.origin = g.origin;
    // A run's own note (and its "NOT VALIDATED" marker) is kept after the given one.
    if (app.given("--note")) p.note = has_run ? g.note + "; " + p.note : g.note;
    if (app.given("--gpu")) p.gpu = g.gpu;  // else the GPU the run measured on (run.xml), if any
    p.driver = g.driver;
    p.nvcc = g.nvcc;
    if (app.given("--original-ms")) p.original_ms = g.original_ms;
    if (app.given("--variant-ms")) p.variant_ms = g.variant_ms;
    if (app.given("--cases")) p.cases_validated = g.cases_validated;
    if (app.given("--elements")) p.elements_validated = g.elements_validated;
    if (app.given("--worst-error")) p.worst_error = g.worst_error;
    p.date = utc_now();
    p.tool_version = GI_OPTIMIZE_VERSION;
    if (!has_run && !genome.empty() && !p.validated()) {
        if (!allow_unvalidated)
            throw Error("a hand-picked genome is not validated by gi-tool: give the validation you did (--cases N "
                        "--elements N), or pass --allow-unvalidated to write it anyway (recorded in the entry, and "
                        "the reason the build uses it)");
        p.waiver = "--allow-unvalidated: a hand-picked genome, not validated by gi-tool";
    }

    const RegisteredKernel kernel = registered_kernel_from(kernel_settings, registration, kernel_path_from(kernel_settings));
    const CacheEntry entry = make_cache_entry(kernel, architectures[0], genome, p);
    const fs::path path = cache_dir / cache_entry_file_name(kernel.registration.functions, architectures[0]);
    OutputGuard().keep(kernel.source.path, "the kernel file").check("--cache-dir", path, "the entry");
    write_cache_entry(path, entry);
    std::cout << "wrote " << printable(path.string()) << " (" << architecture_name(entry.architecture) << ", genome: "
              << (entry.genome.empty() ? "empty" : printable(entry.genome)) << ")\n";
    return kExitOk;
}

// ---- apply ------------------------------------------------------------------------------------

// ---- key --------------------------------------------------------------------------------------

int run_key(const std::vector<std::string>& argv) {
    KernelSettings kernel_settings;
    RegistrationSettings registration;
    std::vector<std::string> arch_options;
    bool as_text = false;
    CommandLine app(
        "usage: gi-tool cache key KERNEL.cu --function NAME [registration options] --arch ARCH... [--text]\n",
        "  Prints, per architecture, the cache key an entry for this kernel and registration must\n"
        "  carry: SHA-256 of the key text (--text prints the text instead). The CMake module\n"
        "  computes the same key at configure time; this is the reference it is tested against,\n"
        "  and the way to see why an entry is stale.\n",
        "example:\n  gi-tool cache key kernels/stereo/stereo.cu --function stereo_kernel --param BLOCK_W=32,64 --arch 90\n");
    app.add_list("--arch", arch_options, "ARCH",
                 std::string("the architecture the entry is for: ") + kArchitectureSpellings + " (repeatable)");
    app.add_switch("--text", as_text, "print the key text instead of its SHA-256");
    app.add_kernel_options(kernel_settings);
    app.add_registration_options(registration);
    if (!app.parse(argv)) return kExitOk;
    const std::vector<int> architectures = architectures_from(arch_options);
    if (architectures.empty()) throw UsageError("--arch N is required (the architecture the entry is for)");
    const SourceFile source = read_source_file(kernel_path_from(kernel_settings));
    const Registration registration_key = registration_from(kernel_settings, registration);
    for (const int arch : architectures) {
        const std::string text = key_text(sha256_hex(source.text), registration_key, arch);
        if (as_text) std::cout << text;
        else std::cout << architecture_name(arch) << " " << sha256_hex(text) << "\n";
    }
    return kExitOk;
}

// ---- dispatch ---------------------------------------------------------------------------------

int run_cache(const std::vector<std::string>& args) {
    const std::string usage =
        "usage: gi-tool cache show|verify|write|apply|key ...   (gi-tool cache <subcommand> --help for each)\n"
        "  show    print cache entries (genome, parameters, provenance, checksum)\n"
        "  verify  check entries: well-formed, untouched, current for the kernel, genome applies [--compile]\n"
        "  write   make an entry from an evolve run (--from-run) or a chosen genome (--genome)\n"
        "  apply   build-time step of the CMake module: variants, wrapper and header from the cache\n"
        "  key     the cache key an entry for a kernel and registration must carry\n\n"
        "example:\n  gi-tool cache show consumer-example/gi-cache\n";
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << usage;
        return args.empty() ? kExitUsage : kExitOk;
    }
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    if (args[0] == "show") return run_show(rest);
    if (args[0] == "verify") return run_verify(rest);
    if (args[0] == "write") return run_write(rest);
    if (args[0] == "apply") return run_cache_apply(rest, "gi-tool cache apply");
    if (args[0] == "key") return run_key(rest);
    throw UsageError("unknown cache subcommand '" + args[0] + "' (show, verify, write, apply or key)");
}

const CommandRegistrar registrar({"cache", "show, verify, write and apply per-architecture cache entries", run_cache});

}  // namespace
}  // namespace gi::cli
