// `gi-tool accept`: the end-to-end acceptance of a variant (issue 15). Held-out validation replays
// recorded inputs; this runs the user's own program with the variant compiled in, as it will ship:
// the program must succeed (its own self-checks included) and every launch it records must give
// the outputs the original gave under the same arguments.
#include <algorithm>
#include <iostream>

#include "cli/command.hpp"
#include "cli/recording.hpp"
#include "compare/recorded_outputs.hpp"
#include "grammar/build_grammar.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {
namespace fs = std::filesystem;

const char* const kUsage =
    "usage: gi-tool accept KERNEL.cu --function NAME --reference DIR --out DIR [options] -- PROGRAM [ARGS...]\n";
const char* const kAbout =
    "  Runs PROGRAM ARGS, a build of the program with the variant compiled in, with recording on\n"
    "  (into DIR, which must not hold cases yet), and accepts the variant only when the program exits\n"
    "  0 and records as many launches of the kernel as the original program recorded in --reference\n"
    "  with the same arguments, each with the same outputs within the tolerance. What the CMake build\n"
    "  runs after evolving a kernel, before the entry goes into the cache. It records as gi-tool record\n"
    "  does: through the launch intercept, or with --record-with launch through gi::launch.\n"
    "  Exit status 0 accepted, 1 rejected (the reason and the program's output are printed).\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool accept kernels/stereo/stereo.cu --function stereo_kernel --reference held-out \\\n"
    "      --out accepted -- build/stereo_gi_accept --pairs 2 --width 640 --height 480\n";

int reject(const std::string& why) {
    std::cout << "gi-tool accept: REJECTED: " << why << "\n";
    return kExitFailure;
}

int run_accept(const std::vector<std::string>& raw) {
    RecordingCommandLine c;
    std::string reference;
    std::vector<std::string> tolerances;
    CommandLine app(kUsage, kAbout, kExamples);
    add_recording_options(app, c, "the __global__ function");
    app.add_text("--reference", reference, "DIR", "the original program's cases recorded with the same ARGS").required();
    app.add_list("--tolerance", tolerances, "SPEC", "how close outputs must be, as registered (repeatable; default exact)");
    if (!parse_recording(app, c, raw, "accept")) return kExitOk;
    const std::string kernel_path = c.kernel.path;
    const std::string function = c.function;
    const fs::path reference_dir = reference;
    RecordingRequest& request = c.request;
    const ToleranceSpec tolerance = parse_tolerance_spec(tolerances, "--tolerance");
    const std::vector<fs::path> references = list_test_cases(reference_dir, request.recorded_name);
    if (references.empty())
        throw Error(reference_dir.string() + ": no recorded cases of '" + request.recorded_name + "' to compare with");
    std::error_code ec;
    if (fs::is_directory(request.out, ec) && !list_test_cases(request.out, request.recorded_name).empty())
        throw UsageError("--out " + request.out.string() + " already holds cases; give a fresh folder");
    // As many launches as the original's run recorded, and no more.
    request.limit = static_cast<long long>(references.size());
    request.variables = capturable_variables(kernel_path, c.arch, compile_settings_from(c.kernel), "accept");

    GrammarOptions grammar_options;
    grammar_options.functions = {function};
    const Grammar grammar = build_grammar(read_source_file(kernel_path), grammar_options);
    std::vector<std::string> arg_names;
    for (const Function& f : grammar.functions)
        if (f.name == function)
            for (const KernelParameter& p : f.parameters) arg_names.push_back(p.name);

    RecordingResult result = run_recording(request);
    keep_recording(request, result);  // in --out whatever the verdict, to look at
    if (const std::string why = recording_problem(request, result, 0); !why.empty()) return reject(why);
    if (result.added.size() != references.size())
        return reject("with the variant the program recorded " + std::to_string(result.added.size()) + " launch(es) of '" +
                      request.recorded_name + "', the original recorded " + std::to_string(references.size()) +
                      " with the same arguments");
    std::uint64_t elements = 0;
    double worst = 0;
    for (std::size_t i = 0; i < references.size(); ++i) {
        const RecordedComparison c =
            compare_recorded_outputs(read_test_case(references[i]), read_test_case(result.added[i]), tolerance, arg_names,
                                     "launch " + std::to_string(i + 1) + " (" + references[i].filename().string() + ")");
        if (!c.same) return reject(c.detail);
        elements += c.elements;
        worst = std::max(worst, c.worst_error);
    }
    std::cout << "gi-tool accept: accepted: `" << command_line_text(request.program) << "` exited 0 and its "
              << references.size() << " launch(es) of '" << request.recorded_name << "' match the original's outputs ("
              << elements << " elements, worst |diff| " << worst << ")\n";
    return kExitOk;
}

const CommandRegistrar registrar({"accept", "run the program with a variant compiled in and compare with the original", run_accept});

}  // namespace
}  // namespace gi::cli
