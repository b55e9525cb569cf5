#include "cli/cache_options.hpp"

#include "cli/help_text.hpp"
#include "cli/kernel_args.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi::cli {

const char* const kRegistrationGroup = "registration options (must match the gi_optimize_cuda_kernel() call the entry was made for)";
const char* const kGridHelp = "launch grid expression, as registered (GRID, joined with ',')";
const char* const kToleranceHelp = "output comparison setting, as registered (repeatable)";
const std::string kRegistrationHelp = std::string(kRegistrationGroup) + ":\n" + option_help_line("--grid EXPR", kGridHelp) +
                                      option_help_line("--tolerance TEXT", kToleranceHelp);

RegistrationSettings registration_settings_from(const Args& args) {
    return {args.value("--grid").value_or(""), args.values("--tolerance")};
}

Registration registration_from(const KernelSettings& kernel, const RegistrationSettings& settings) {
    Registration r;
    r.functions = kernel.functions;
    r.params = kernel.params;
    r.flags = kernel.flags;
    r.block_size = kernel.block_size;
    r.grid = settings.grid;
    r.tolerance = settings.tolerance;
    if (r.functions.empty())
        throw UsageError("--function is required: a cache entry belongs to named kernels (--function NAME)");
    return normalized(r);
}

RegisteredKernel registered_kernel_from(const KernelSettings& kernel, const RegistrationSettings& settings,
                                        const std::string& kernel_path) {
    return make_registered_kernel(read_source_file(kernel_path), registration_from(kernel, settings), grammar_options_from(kernel));
}

std::vector<int> architectures_from(const std::vector<std::string>& arch_options, const std::string& option) {
    std::vector<int> out;
    for (const std::string& text : arch_options) {
        const int arch = parse_architecture(text, option);
        for (const int seen : out)
            if (seen == arch) throw UsageError(option + " " + text + " is given twice");
        out.push_back(arch);
    }
    return out;
}

std::string provenance_line(const Provenance& p) {
    std::string line = p.origin.empty() ? "unknown origin" : p.origin;
    if (!p.gpu.empty()) line += " on " + p.gpu;
    std::string versions;
    if (!p.driver.empty()) versions += "driver " + p.driver;
    if (!p.nvcc.empty()) versions += (versions.empty() ? "" : ", ") + std::string("nvcc ") + p.nvcc;
    if (!versions.empty()) line += " (" + versions + ")";
    if (!p.date.empty()) line += ", " + p.date;
    return line;
}

}  // namespace gi::cli
