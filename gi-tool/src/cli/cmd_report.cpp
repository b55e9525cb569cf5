// `gi-tool report`: one self-contained HTML page of a run (DIR/run.xml) with inline SVG charts,
// readable offline and as a CI artifact (issue 21).
#include <tinyxml2.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "source/source_file.hpp"
#include "grammar/build_grammar.hpp"
#include "report/html_report.hpp"
#include "util/atomic_file.hpp"
#include "run/record_xml.hpp"
#include "run/out_folder_names.hpp"
#include "util/error.hpp"
#include "util/output_path.hpp"

namespace gi::cli {
namespace {
namespace fs = std::filesystem;

const char* const kUsage = "usage: gi-tool report --out DIR [-o FILE.html] [KERNEL.cu --function NAME [kernel options]]\n";
const char* const kAbout =
    "  Writes one HTML page about the run in DIR (the --out folder of gi-tool evolve, read from\n"
    "  DIR/run.xml): its result and validation, where the time went, speedup and what the search\n"
    "  tried per generation, the original kernel's timing noise, and each kept edit's knock-out cost.\n"
    "  With the kernel and its registration (as given to evolve), also the source lines each item of\n"
    "  the final genome changes, before and after (--grid, --tolerance, -I, -D and --compile-option are\n"
    "  accepted and unused, so a .registration file fits). Charts are inline SVG: nothing is fetched,\n"
    "  the page opens offline. Safe while the run goes on. Exit status 1 for no or an unreadable run.xml.\n";
const char* const kExamples =
    "example:\n  gi-tool report --out run kernels/stereo/stereo.cu --function stereo_kernel --param ROWS_PER_THREAD=1..8\n";

// The final genome's items on the kernel's source, or why not.
SourceView source_view(const KernelSettings& kernel, const RunRecord& record) {
    SourceView view;
    if (kernel.path.empty()) return view;
    const SourceFile source = read_source_file(kernel.path);
    const Grammar grammar = build_grammar(source, grammar_options_from(kernel));
    std::string recorded;
    for (const auto& [name, value] : record.settings)
        if (name == "kernel-sha256") recorded = value;
    if (!recorded.empty() && recorded != grammar.source_hash) {
        view.note = "The kernel given (" + kernel.path + ") is not the file this run evolved (its sha256 " +
                    grammar.source_hash.substr(0, 12) + "..., the run's " + recorded.substr(0, 12) + "...): no source view.";
        return view;
    }
    try {
        view.items = item_diffs(parse_genome(record.final_genome), grammar, source.text);
    } catch (const Error& e) {
        view.note = std::string("The final genome does not apply to the kernel as registered here: ") + e.what();
    }
    return view;
}

// The page replaces only an earlier page: the run does not know its kernel's path (run.xml keeps
// its sha256 alone), so `report -o stereo.cu` replaced the kernel the run was made from (issue 39,
// probe row B6). And no file of the run's own names, existing or not (history.sqlite-wal, say).
void refuse_replacing_other_files(const fs::path& output, const fs::path& dir) {
    std::error_code ec;
    const std::string name = output.filename().string();
    if (fs::weakly_canonical(fs::absolute(output).parent_path(), ec) == fs::weakly_canonical(fs::absolute(dir), ec) &&
        (name.rfind("history.sqlite", 0) == 0 ||
         std::any_of(kOutFolderNames.begin(), kOutFolderNames.end(), [&](const char* n) { return name == n; })))
        throw UsageError("-o " + output.string() + ": is one of the run's own files' names; write the page to another file");
    const fs::file_status status = fs::symlink_status(output, ec);
    if (!fs::exists(status)) return;
    std::string start(std::string(kReportPageStart).size(), '\0');
    if (fs::is_regular_file(status)) {  // never a device or a FIFO: those are not even opened
        std::ifstream in(output, std::ios::binary);
        in.read(start.data(), static_cast<std::streamsize>(start.size()));
        start.resize(static_cast<std::size_t>(in.gcount()));
    }
    if (start != kReportPageStart)
        throw UsageError("-o " + output.string() + ": the file exists and is not a page gi-tool report wrote (the run's "
                         "kernel, say); it is not replaced: remove it first, or write the page to another file");
}

int run_report(const std::vector<std::string>& arguments) {
    KernelSettings kernel;
    RegistrationSettings unused;
    std::string out, page;
    CommandLine app(kUsage, kAbout, kExamples);
    app.add_text("--out", out, "DIR", "the run's output directory").required();
    app.add_text("-o", page, "FILE", "where to write the page (default DIR/report.html)");
    app.add_kernel_options(kernel);
    app.add_registration_options(unused);
    if (!app.parse(arguments)) return kExitOk;
    const fs::path dir = out;
    const fs::path run_xml = dir / "run.xml";
    if (!fs::is_regular_file(run_xml))
        throw Error(run_xml.string() + ": no run record here (is " + dir.string() + " the --out folder of gi-tool evolve?)");
    // The page never replaces what the run wrote, nor the kernel it was made from.
    const fs::path output = page.empty() ? dir / "report.html" : fs::path(page);
    OutputGuard guard;
    for (const char* name : kOutFolderNames) guard.keep(dir / name, std::string("the run's ") + name);
    if (!kernel.path.empty()) guard.keep(kernel.path, "the kernel file");
    guard.check("-o", output, "the page");
    refuse_replacing_other_files(output, dir);
    // Through the size guard of every run file: an 8 GB "run.xml" is refused before it is read.
    const std::string run_text = read_text_file(run_xml, "run record");
    tinyxml2::XMLDocument document;
    if (document.Parse(run_text.data(), run_text.size()) != tinyxml2::XML_SUCCESS || !document.RootElement())
        throw Error(located_message(run_xml.string(), document.ErrorLineNum(), "cannot read the run record",
                                    "is it a gi-tool evolve run.xml?"));
    const RunRecord record = read_run_record(document.RootElement(), run_xml.string());
    write_file_atomically(output, html_report(record, dir.string(), source_view(kernel, record)));
    std::cout << "gi-tool report: wrote " << output.string() << "\n";
    return kExitOk;
}

const CommandRegistrar registrar({"report", "write an HTML page of a run with charts (speedup, search, noise, edits)", run_report});
}  // namespace
}  // namespace gi::cli
