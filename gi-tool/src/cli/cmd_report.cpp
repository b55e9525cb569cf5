// `gi-tool report`: one self-contained HTML page of a run (DIR/run.xml) with inline SVG charts,
// readable offline and as a CI artifact (issue 21).
#include <tinyxml2.h>

#include <filesystem>
#include <iostream>

#include "cli/args.hpp"
#include "cli/command.hpp"
#include "report/html_report.hpp"
#include "search/atomic_file.hpp"
#include "search/record_xml.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {
namespace fs = std::filesystem;

const char* kHelp =
    "usage: gi-tool report --out DIR [-o FILE.html]\n"
    "  Writes one HTML page about the run in DIR (the --out folder of gi-tool evolve, read from\n"
    "  DIR/run.xml): its result and validation, where the time went, speedup and what the search\n"
    "  tried per generation, the original kernel's timing noise, and each kept edit's knock-out cost.\n"
    "  Charts are inline SVG: nothing is fetched, the page opens offline. Safe while the run goes on.\n\n"
    "  --out DIR         the run's output directory\n"
    "  -o FILE           where to write the page (default DIR/report.html)\n"
    "\nexit status: 0 ok, 1 failure (no or unreadable run.xml), 2 usage error\n";

int run_report(const std::vector<std::string>& arguments) {
    const Args args(arguments, {"--out", "-o"}, {"--help"});
    if (args.has("--help")) {
        std::cout << kHelp;
        return kExitOk;
    }
    if (!args.positional().empty())
        throw UsageError("unexpected argument '" + args.positional().front() + "' (give the run's folder with --out)");
    const fs::path dir = args.required("--out");
    const fs::path run_xml = dir / "run.xml";
    if (!fs::is_regular_file(run_xml))
        throw Error(run_xml.string() + ": no run record here (is " + dir.string() + " the --out folder of gi-tool evolve?)");
    tinyxml2::XMLDocument document;
    if (document.LoadFile(run_xml.string().c_str()) != tinyxml2::XML_SUCCESS || !document.RootElement())
        throw Error(located_message(run_xml.string(), document.ErrorLineNum(), "cannot read the run record",
                                    "is it a gi-tool evolve run.xml?"));
    const RunRecord record = read_run_record(document.RootElement(), run_xml.string());
    const fs::path output = args.value("-o") ? fs::path(*args.value("-o")) : dir / "report.html";
    if (fs::exists(output) && fs::equivalent(output, run_xml)) throw UsageError("-o would overwrite the run record " + run_xml.string());
    write_file_atomically(output, html_report(record, dir.string()));
    std::cout << "gi-tool report: wrote " << output.string() << "\n";
    return kExitOk;
}

const CommandRegistrar registrar({"report", "write an HTML page of a run with charts (speedup, search, noise, edits)", run_report});
}  // namespace
}  // namespace gi::cli
