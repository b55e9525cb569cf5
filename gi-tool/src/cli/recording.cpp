#include "cli/recording.hpp"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>

#include "compile/kernel_variables.hpp"
#include "grammar/build_grammar.hpp"
#include "record/intercept_settings.hpp"
#include "source/source_file.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/format.hpp"

namespace gi::cli {
namespace fs = std::filesystem;
namespace {

std::set<fs::path> cases_in(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return {};
    const std::vector<fs::path> found = list_test_cases(dir, name);
    return {found.begin(), found.end()};
}

}  // namespace

std::vector<ModuleVariable> capturable_variables(const std::string& kernel_path, const std::string& arch,
                                                 const CompileSettings& settings, const std::string& command) {
    KernelFileCompile compile;
    compile.path = kernel_path;
    compile.source = read_source_file(kernel_path).text;
    compile.arch = arch;
    compile.include_dirs = settings.include_dirs;
    compile.options = settings.options;
    std::vector<ModuleVariable> variables;
    std::string private_names;
    for (ModuleVariable& v : kernel_file_variables(compile)) {
        if (file_private_name(v.name)) private_names += (private_names.empty() ? "" : ", ") + v.name;
        else variables.push_back(std::move(v));
    }
    if (!private_names.empty())
        std::cerr << "gi-tool " << command << ": note: " << kernel_path << " has variables private to the file (static "
                  << "inside a namespace, or in an anonymous namespace: " << private_names << "); their compiled names "
                  << "depend on the path it was compiled from, so they cannot be captured. Declare them outside such "
                     "namespaces if the program sets them at run time\n";
    return variables;
}

std::string find_intercept_library() {
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "";
    const fs::path dir = self.parent_path();
    std::vector<fs::path> candidates = {dir / kInterceptLibraryName, dir.parent_path() / "lib" / kInterceptLibraryName,
                                        dir.parent_path() / "lib64" / kInterceptLibraryName,
                                        dir.parent_path() / "gi-tool" / kInterceptLibraryName};
#ifdef GI_INTERCEPT_INSTALL_DIR
    // Where the installed package puts it (the platform's library folder, lib/x86_64-linux-gnu on
    // Debian's /usr), relative to gi-tool's own folder unless absolute.
    candidates.push_back(dir / GI_INTERCEPT_INSTALL_DIR / kInterceptLibraryName);
#endif
    for (const fs::path& candidate : candidates)
        if (fs::is_regular_file(candidate, ec)) return fs::weakly_canonical(candidate, ec).string();
    return "";
}

std::vector<std::pair<std::string, std::string>> recording_environment(const RecordingRequest& request,
                                                                       const fs::path& folder,
                                                                       const std::string& preloaded) {
    // The recorder counts the cases `out` holds toward the limit, kernel by kernel, and skips
    // launches identical to them (GI_RECORD_KNOWN_DIR): the run's own folder starts empty.
    std::vector<std::pair<std::string, std::string>> variables = {
        {"GI_RECORD_DIR", folder.string()},
        {"GI_RECORD_KNOWN_DIR", fs::absolute(request.out).string()},
        {"GI_RECORD_GLOBALS", module_variables_text(request.variables)},
        {"GI_RECORD_LIMIT", std::to_string(request.limit)}};
    if (request.with == RecordWith::Launch) {
        // Not an intercept's run this program may have been started from: gi::launch records.
        variables.emplace_back("GI_RECORD_BY", "launch");
        return variables;
    }
    for (auto& variable : intercept_environment({request.recorded_name, request.signature}))
        variables.push_back(std::move(variable));
    variables.emplace_back("LD_PRELOAD", request.intercept_library + (preloaded.empty() ? "" : ":" + preloaded));
    return variables;
}

std::optional<std::vector<std::string>> source_signature(const std::string& kernel_path, const std::string& function,
                                                         const std::string& command) {
    const std::string base = template_base_name(function);
    const std::string last = base.substr(base.rfind(':') == std::string::npos ? 0 : base.rfind(':') + 1);
    try {
        GrammarOptions options;
        options.functions = {function};
        const Grammar grammar = build_grammar(read_source_file(kernel_path), options);
        for (const Function& f : grammar.functions) {
            if (!f.is_global || (f.name != function && f.name != base && f.name != last)) continue;
            std::vector<std::string> types;
            for (const KernelParameter& p : f.parameters) types.push_back(p.type);
            return types;
        }
    } catch (const Error& e) {
        std::cerr << "gi-tool " << command << ": note: the parameters of '" << function << "' could not be read from "
                  << kernel_path << " (" << e.what() << "); an extern \"C\" kernel cannot be recorded without them\n";
    }
    return std::nullopt;
}

RecordingResult run_recording(const RecordingRequest& request) {
    std::error_code ec;
    fs::create_directories(request.out, ec);
    if (ec) throw Error(request.out.string() + ": cannot create the folder for the cases: " + ec.message());
    RecordingResult result;
    // Inside `out`, so its cases move into place by rename (one file system); hidden from readers
    // of `out` by the ".tmp-" every case reader skips.
    result.folder = std::make_unique<TemporaryDirectory>(".tmp-record", fs::absolute(request.out));
    ProcessOptions po;
    po.timeout = std::chrono::milliseconds(static_cast<long long>(request.timeout_s * 1000));
    po.max_output_bytes = 4 << 20;
    // The recorder reads its settings from the environment, set for the program alone.
    const char* preloaded = std::getenv("LD_PRELOAD");
    po.environment = recording_environment(request, result.folder->path(), preloaded ? preloaded : "");
    result.process = run_process(request.program, po);
    std::cout << result.process.out << std::flush;
    std::cerr << result.process.err << std::flush;
    for (const fs::path& p : cases_in(result.folder->path(), request.recorded_name)) result.added.push_back(p);
    result.launched = read_side_file(result.folder->path(), kLaunchedKernelsFile);
    result.intercept_errors = read_side_file(result.folder->path(), kInterceptErrorsFile);
    return result;
}

void keep_recording(const RecordingRequest& request, RecordingResult& result) {
    result.added.clear();
    std::map<std::string, long long> held;  // cases of each kernel in `out`, this run's included
    for (const fs::path& p : list_test_cases(result.folder->path())) {
        const std::string kernel = read_test_case(p, CaseLoad::ManifestOnly).kernel;
        auto count = held.find(kernel);
        if (count == held.end()) count = held.emplace(kernel, cases_in(request.out, kernel).size()).first;
        if (count->second >= request.limit) continue;
        const fs::path placed = move_test_case(p, request.out);
        ++count->second;
        if (kernel == request.recorded_name) result.added.push_back(placed);
    }
}

std::string recording_problem(const RecordingRequest& request, const RecordingResult& result, std::size_t existing) {
    const std::string shown = command_line_text(request.program);
    const ProcessResult& run = result.process;
    if (run.timed_out)
        return "`" + shown + "` did not finish within " + std::to_string(static_cast<long long>(request.timeout_s)) + " s";
    const bool intercepted = request.with == RecordWith::Intercept;
    // First, since a launch the intercept refused may be why the program failed after it.
    if (!result.intercept_errors.empty())
        return "`" + shown + "` " + (run.succeeded() ? "ran" : "failed") + ", and its launches of '" +
               request.recorded_name + "' cannot be recorded:\n  " + join(result.intercept_errors, "\n  ") +
               "\n(recorded by gi-tool's launch intercept; a program that launches the kernel through gi::launch can be "
               "recorded with --record-with launch instead)";
    if (!run.succeeded())
        return "`" + shown + "` failed (" + (run.signal ? "signal " + std::to_string(run.signal) : "exit status " + std::to_string(run.exit_code)) +
               "). Its last output:\n" + last_lines(run.out + run.err, 15);
    if (!result.added.empty()) return "";
    if (existing >= static_cast<std::size_t>(request.limit))
        return request.out.string() + " already holds " + std::to_string(existing) + " cases of '" + request.recorded_name +
               "' (the limit is " + std::to_string(request.limit) + "); nothing new was recorded. Record into a new folder";
    const std::string not_launched =
        intercepted ? launched_kernels_text(result.launched, request.recorded_name)
                    : "it no longer launches the kernel through gi::launch(kernel, \"" + request.recorded_name + "\", ...)";
    if (existing > 0)
        return "`" + shown + "` recorded nothing new of '" + request.recorded_name + "': each of its launches had the same "
               "inputs as one of the " + std::to_string(existing) + " cases " + request.out.string() + " already holds "
               "(the recorder's line above counts them; without that line, " + not_launched + "). "
               "Run it on other inputs to add cases";
    if (intercepted)
        return "`" + shown + "` ran but recorded no launch of '" + request.recorded_name + "': " + not_launched +
               (result.launched.empty() ? "" : ". --function names the kernel as the program launches it (a template "
                                               "alone, every instantiation; with its arguments, one)");
    return "`" + shown + "` ran but recorded no launch of '" + request.recorded_name + "': it must launch the kernel through "
           "gi::launch(kernel, \"" + request.recorded_name + "\", ...) and link GIOptimize::recorder (docs/cmake.md); if it "
           "names the launch differently, pass --recorded-name";
}

std::string last_lines(const std::string& text, std::size_t count) {
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const std::size_t end = std::min(text.find('\n', start), text.size());
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    std::string out;
    for (std::size_t i = lines.size() > count ? lines.size() - count : 0; i < lines.size(); ++i) out += lines[i] + "\n";
    return out;
}

void add_recording_options(CommandLine& app, RecordingCommandLine& c, const std::string& function_help) {
    app.add_kernel_options(c.kernel, true, kCompileOptionNames);
    app.add_text("--function", c.function, "NAME", function_help).required();
    app.add_text("--recorded-name", c.request.recorded_name, "NAME",
                 "the name the cases get and, with the intercept, the kernel it records (default: the function's); with "
                 "--record-with launch, the name the program gives gi::launch");
    app.add_text("--record-with", c.record_with, "HOW",
                 "intercept: gi-tool's launch intercept, preloaded into the program, records the kernel's launches however "
                 "they are made; launch: the program's own gi::launch calls record them")
        .shown_default(c.record_with)
        .check([](const std::string& value) {
            return value == "intercept" || value == "launch" ? "" : "must be 'intercept' or 'launch', got '" + value + "'";
        });
    app.add_text("--out", c.out, "DIR", "where this run's cases go (created if missing)").required();
    app.add_architecture("--arch", c.arch, "architecture KERNEL.cu is compiled for to list its variables").shown_default(c.arch);
    app.add_number("--timeout", c.request.timeout_s, 1, 1e7, "seconds the program may run");
}

bool parse_recording(CommandLine& app, RecordingCommandLine& c, const std::vector<std::string>& raw, const std::string& command) {
    const auto separator = std::find(raw.begin(), raw.end(), "--");
    if (!app.parse(std::vector<std::string>(raw.begin(), separator))) return false;
    kernel_path_from(c.kernel);
    c.request.program.assign(separator == raw.end() ? raw.end() : separator + 1, raw.end());
    if (c.request.program.empty())
        throw UsageError("missing the program to run: gi-tool " + command + " KERNEL.cu ... -- PROGRAM [ARGS...]");
    c.request.out = c.out;
    if (c.request.recorded_name.empty()) c.request.recorded_name = c.function;
    if (c.record_with == "launch") {
        c.request.with = RecordWith::Launch;
        return true;
    }
    c.request.with = RecordWith::Intercept;
    c.request.intercept_library = find_intercept_library();
    if (c.request.intercept_library.empty())
        throw Error(std::string("cannot find ") + kInterceptLibraryName + ", the launch intercept gi-tool " + command +
                    " preloads into the program, beside gi-tool or in ../lib (build the gi_launch_intercept target; or, "
                    "for a program that launches the kernel through gi::launch, pass --record-with launch)");
    if (c.request.intercept_library.find_first_of(" :") != std::string::npos)
        throw Error(c.request.intercept_library + ": a library whose path holds a space or ':' cannot be preloaded "
                    "(LD_PRELOAD splits there); install gi-tool elsewhere, or pass --record-with launch");
    c.request.signature = source_signature(c.kernel.path, c.function, command);
    return true;
}

}  // namespace gi::cli
