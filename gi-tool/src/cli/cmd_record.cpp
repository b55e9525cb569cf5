// `gi-tool record`: runs a program with recording on, telling the recorder which module variables
// of the kernel's file to capture besides the arguments, and checks what came back: the program
// succeeded, it recorded the kernel, and every case holds every variable. By default the
// recorder is gi-tool's launch intercept, preloaded into the program (cli/recording.hpp), so the
// program needs no change; `--record-with launch` leaves it to the program's gi::launch calls. The
// one way to record cases that the CMake module and the docs use.
#include <algorithm>
#include <iostream>

#include "cli/command.hpp"
#include "cli/recording.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {
namespace fs = std::filesystem;

const char* const kUsage = "usage: gi-tool record KERNEL.cu --function NAME --out DIR [options] -- PROGRAM [ARGS...]\n";
const char* const kAbout =
    "  Runs PROGRAM ARGS with recording on: each distinct launch of the kernel becomes a test case in\n"
    "  DIR holding everything the kernel reads: the memory its pointer arguments point into, device\n"
    "  pointers held in struct arguments and arrays, and the __constant__ and __device__ variables\n"
    "  KERNEL.cu defines (listed by compiling it here and passed to the recorder as\n"
    "  GI_RECORD_GLOBALS). Fails, removing this run's cases, when the program fails, records nothing\n"
    "  (the error names the kernels it launched) or launches the kernel in a way that cannot be\n"
    "  recorded; cases already in DIR are kept. The program records into a hidden folder of this run\n"
    "  inside DIR, whose cases move into DIR (numbered after those there) when it succeeds: runs\n"
    "  sharing DIR never take or remove each other's cases. A launch with the same inputs as one\n"
    "  already recorded (a benchmark's timing loop, or a case already in DIR) is not recorded again;\n"
    "  --limit counts distinct cases.\n"
    "  The program needs no change: gi-tool preloads its launch intercept (libgi-intercept.so, through\n"
    "  LD_PRELOAD), which sees the kernel's launches however they are made (<<<...>>>,\n"
    "  cudaLaunchKernel, cudaLaunchKernelEx, cuLaunchKernel), with the CUDA runtime linked statically\n"
    "  or shared. --function names the kernel as the program launches it: a template alone records\n"
    "  every instantiation, \"k<32>\" one. The intercept cannot see launches inside CUDA graphs\n"
    "  (cudaGraphLaunch; a launch into a stream being captured is made, not recorded), nor any launch\n"
    "  of a setuid program (the loader ignores LD_PRELOAD there) or off Linux, and it refuses\n"
    "  cooperative and cluster launches. For those, launch the kernel through gi::launch in the\n"
    "  program and pass --record-with launch: then only gi::launch records, under the name the\n"
    "  program gives it.\n";
const char* const kExamples =
    "example:\n"
    "  gi-tool record kernels/stereo/stereo.cu --function stereo_kernel --out cases -- \\\n"
    "      build/kernels/stereo_driver --pairs 4\n";

int run_record(const std::vector<std::string>& raw) {
    RecordingCommandLine c;
    CommandLine app(kUsage, kAbout, kExamples);
    add_recording_options(app, c, "the __global__ function (its cases are named after it)");
    app.add_integer("--limit", c.request.limit, 1, 1000000, "distinct cases per kernel, counting those already in DIR");
    if (!parse_recording(app, c, raw, "record")) return kExitOk;
    RecordingRequest& request = c.request;
    const std::string kernel_path = c.kernel.path;
    request.variables = capturable_variables(kernel_path, c.arch, compile_settings_from(c.kernel), "record");

    std::error_code ec;
    const std::size_t existing = fs::is_directory(request.out, ec) ? list_test_cases(request.out, request.recorded_name).size() : 0;
    RecordingResult result = run_recording(request);
    // The run's cases are still in its own folder, which goes with `result`: nothing of `out`,
    // where another recorder may be writing, is touched.
    auto discard = [&](const std::string& why) {
        throw Error(why + (result.added.empty() ? "" : "\n(the " + std::to_string(result.added.size()) +
                                                          " case(s) it recorded are removed: a failing run is no oracle)"));
    };
    if (const std::string why = recording_problem(request, result, existing); !why.empty()) discard(why);
    // The recorder skips a variable the program's module lacks (compiled with other macros, say):
    // such a case could not be replayed faithfully.
    for (const fs::path& p : result.added) {
        const TestCase tc = read_test_case(p, CaseLoad::ManifestOnly);
        for (const ModuleVariable& v : request.variables)
            if (std::none_of(tc.buffers.begin(), tc.buffers.end(), [&](const CaseBuffer& b) { return b.variable == v.name; }))
                discard(p.string() + " lacks the " + std::string(v.constant ? "__constant__" : "__device__") + " variable '" +
                        v.name + "' that " + kernel_path + " defines: the program's own build of the file does not define "
                        "it (other macros or include paths?), so the kernel it runs is not the one in " + kernel_path);
    }
    keep_recording(request, result);
    std::cout << "gi-tool record: " << result.added.size() << " case(s) of '" << request.recorded_name << "' in "
              << request.out.string();
    std::string names;
    for (const ModuleVariable& v : request.variables) names += (names.empty() ? "" : ", ") + v.name;
    if (!names.empty()) std::cout << ", each with the module variable(s) " << names;
    std::cout << "\n";
    return kExitOk;
}

const CommandRegistrar registrar({"record", "run a program to record the kernel's launches as test cases", run_record});

}  // namespace
}  // namespace gi::cli
