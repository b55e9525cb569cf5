#include "compile/nvcc_compiler.hpp"

#include <regex>
#include <sstream>

#include "util/error.hpp"
#include "process/process.hpp"

namespace gi {
namespace {

bool is_executable(const std::filesystem::path& path) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    return !ec && std::filesystem::is_regular_file(status) &&
           (status.permissions() & std::filesystem::perms::owner_exec) != std::filesystem::perms::none;
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    if (from.empty()) return text;
    for (std::size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()))
        text.replace(pos, from.size(), to);
    return text;
}

bool reports_error(const std::string& line) {
    static const std::regex pattern(R"((^|[\s:(])(error|fatal error|catastrophic error)\b)", std::regex::icase);
    return std::regex_search(line, pattern);
}

}  // namespace

std::string find_nvcc() {
    if (const char* path = std::getenv("PATH")) {
        std::stringstream folders(path);
        std::string folder;
        while (std::getline(folders, folder, ':'))
            if (!folder.empty() && is_executable(std::filesystem::path(folder) / "nvcc"))
                return (std::filesystem::path(folder) / "nvcc").string();
    }
    const std::filesystem::path fallback = "/usr/local/cuda/bin/nvcc";
    if (is_executable(fallback)) return fallback.string();
    throw Error("nvcc not found on PATH nor at /usr/local/cuda/bin/nvcc (install the CUDA toolkit, add its bin "
                "folder to PATH, or name the compiler with --nvcc PATH)");
}

void check_nvcc_arch(const std::string& arch) {
    static const std::regex pattern(R"(sm_[0-9]{2,3}[af]?)");
    if (!std::regex_match(arch, pattern))
        throw UsageError("architecture '" + arch + "' is not a real GPU architecture like sm_80 or sm_90 (nvcc " +
                         "-cubin needs one; compute_XX is a virtual architecture)");
}

std::string first_error_lines(const std::string& log, int count, const std::string& scratch_path,
                              const std::string& shown_name) {
    std::vector<std::string> errors, others;
    std::stringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
        line = replace_all(line, scratch_path, shown_name);
        (reports_error(line) ? errors : others).push_back(line);
    }
    const std::vector<std::string>& chosen = errors.empty() ? others : errors;
    std::string text;
    for (int i = 0; i < count && i < static_cast<int>(chosen.size()); ++i) text += (i ? "\n" : "") + chosen[i];
    return text;
}

NvccCompiler::NvccCompiler(NvccOptions options) : options_(std::move(options)) {
    if (options_.nvcc.empty()) options_.nvcc = find_nvcc();
    check_nvcc_arch(options_.arch);
}

std::vector<std::string> NvccCompiler::command(const std::filesystem::path& source, const std::filesystem::path& output,
                                               const std::vector<std::string>& variant_options) const {
    std::vector<std::string> argv{options_.nvcc, "-arch=" + options_.arch, options_.object ? "-c" : "-cubin"};
    for (const std::string& dir : options_.include_dirs) argv.push_back("-I" + dir);
    argv.insert(argv.end(), options_.flags.begin(), options_.flags.end());
    argv.insert(argv.end(), variant_options.begin(), variant_options.end());
    argv.push_back("-o");
    argv.push_back(output.string());
    // nvcc picks the language by the file's extension and refuses a header ("Don't know what to do
    // with 'k.cuh'"): a kernel defined in a .cuh/.h file (KERNEL reduction_kernel.cuh) is CUDA.
    if (source.extension() != ".cu") {
        argv.push_back("-x");
        argv.push_back("cu");
    }
    argv.push_back(source.string());
    return argv;
}

CompileOutcome NvccCompiler::compile(const std::filesystem::path& source, const std::filesystem::path& output,
                                     const std::vector<std::string>& variant_options,
                                     const std::string& shown_name) const {
    ProcessOptions process;
    process.timeout = options_.timeout;
    const ProcessResult run = run_process(command(source, output, variant_options), process);
    CompileOutcome outcome;
    outcome.seconds = run.seconds;
    outcome.log = replace_all(run.err + run.out, source.string(), shown_name);
    if (run.timed_out) {
        outcome.status = CompileOutcome::Status::TimedOut;
        outcome.first_errors = "nvcc ran longer than " + std::to_string(options_.timeout.count()) + " ms and was killed";
    } else if (!run.succeeded()) {
        outcome.status = CompileOutcome::Status::Failed;
        outcome.first_errors = first_error_lines(run.err + run.out, 3, source.string(), shown_name);
        if (run.signal != 0) outcome.first_errors += "\n(nvcc killed by signal " + std::to_string(run.signal) + ")";
        if (outcome.first_errors.empty())
            outcome.first_errors = "nvcc exited with status " + std::to_string(run.exit_code) + " and printed nothing";
    }
    return outcome;
}

}  // namespace gi
