// `gi-tool cases DIR`: lists and verifies recorded test cases (manifest, sizes, checksums) and,
// given the kernel and its launch-geometry declaration, checks that the declaration reproduces
// every recorded launch with the default parameters.
#include <iomanip>
#include <iostream>

#include "cli/command.hpp"
#include "cli/command_line.hpp"
#include "cuda/case_set.hpp"
#include "launch/geometry.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/format.hpp"
#include "util/text_rule.hpp"

namespace gi::cli {
namespace {

const char* const kUsage =
    "usage: gi-tool cases DIR [--recorded-name NAME] [--kernel KERNEL.cu --function NAME [--param ...]\n"
    "                         --block EXPR --grid EXPR]\n";
const char* const kAbout =
    "  Reads every test case under DIR (written by a program launching through gi::launch with\n"
    "  GI_RECORD_DIR=DIR), checks sizes and checksums of all data, and prints one line per case.\n"
    "  With --kernel and --block/--grid, also checks that the geometry declaration gives each\n"
    "  recorded grid and block under the parameters' default values. Exit 1 on the first bad case.\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool cases cases --kernel kernels/stereo/stereo.cu --function stereo_kernel \\\n"
    "      --param BLOCK_W=32,64,128 --block BLOCK_W --grid 'ceil(width/BLOCK_W),ceil(height/ROWS_PER_THREAD)'\n";

int run_cases(const std::vector<std::string>& raw) {
    KernelSettings kernel;
    std::vector<std::string> folders_given;
    std::string block, grid, recorded_name;
    CommandLine app(kUsage, kAbout, kExamples);
    app.add_positionals("DIR", folders_given, "the folder of recorded test cases");
    app.add_text("--recorded-name", recorded_name, "NAME", "only cases recorded under this gi::launch name");
    app.add_text("--kernel", kernel.path, "KERNEL.cu", "the kernel source, for parameter defaults and argument names");
    app.add_text("--block", block, "EXPR", "the launch's block declaration to check");
    app.add_text("--grid", grid, "EXPR", "the launch's grid declaration to check");
    app.add_kernel_options(kernel, false);
    if (!app.parse(raw)) return kExitOk;
    if (folders_given.size() != 1) {
        std::string given;
        for (const std::string& word : folders_given) given += (given.empty() ? "" : " ") + word;
        throw UsageError("expected one folder of test cases, got " +
                         (given.empty() ? std::string("none") : "'" + excerpt(given) + "'") +
                         " (write 'gi-tool cases DIR'; verification is what it does, there is no subcommand)");
    }
    const LaunchGeometry geometry = parse_launch_geometry(block, grid);
    std::vector<std::string> arg_names;
    NameValues defaults;
    if (!kernel.path.empty()) {
        const Grammar grammar = grammar_from(kernel);
        for (const Function& f : grammar.functions)
            if (f.is_global) {
                for (const KernelParameter& p : f.parameters) arg_names.push_back(p.name);
                break;
            }
        // As evolve's cuda evaluator reads them: the parameters and the file's integer #defines.
        CaseKernel names;
        names.read_names(grammar);
        defaults = names.param_defaults;
    } else if (geometry.declared()) {
        throw UsageError("--block/--grid need --kernel KERNEL.cu (for the parameters' defaults and argument names)");
    }
    const auto folders = list_test_cases(folders_given[0], recorded_name);
    if (folders.empty()) throw Error(folders_given[0] + ": no recorded test cases here");
    std::uint64_t bytes = 0;
    for (const auto& folder : folders) {
        const TestCase tc = read_test_case(folder, CaseLoad::Checked);  // checksums, no buffer kept
        check_recorded_geometry(geometry, tc, defaults, arg_names);
        int changed = 0;
        std::uint64_t case_bytes = 0;
        for (const auto& b : tc.buffers) {
            changed += b.changed ? 1 : 0;
            case_bytes += b.size;
        }
        bytes += case_bytes;
        // Names come from the case's manifest, which anyone may have written: printable().
        std::cout << printable(folder.filename().string()) << ": " << printable(tc.kernel) << " grid " << to_string(tc.grid)
                  << " block " << to_string(tc.block) << ", " << tc.args.size() << " args, " << tc.buffers.size()
                  << " buffers (" << changed << " changed), " << case_bytes << " bytes"
                  << (tc.device.empty() ? "" : ", recorded on " + printable(tc.device)) << "\n";
    }
    std::cout << folders.size() << " case(s) verified, " << bytes << " bytes"
              << (geometry.declared() ? "; the geometry declaration reproduces every recorded launch" : "") << "\n";
    return kExitOk;
}

const CommandRegistrar registrar({"cases", "list and verify recorded test cases (checksums, launch geometry)", run_cases});

}  // namespace
}  // namespace gi::cli
