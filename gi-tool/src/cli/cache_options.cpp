#include "cli/cache_options.hpp"

#include "cli/kernel_args.hpp"
#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi::cli {

const char* const kRegistrationHelp =
    "registration options (must match the gi_optimize_cuda_kernel() call the entry was made for):\n"
    "  --grid EXPR               launch grid expression, as registered (GRID, joined with ',')\n"
    "  --tolerance TEXT          output comparison setting, as registered (repeatable)\n";

Registration registration_from(const Args& args) {
    Registration r;
    r.functions = args.values("--function");
    r.params = args.values("--param");
    r.flags = args.values("--flag");
    r.block_size = args.value("--block-size").value_or("");
    r.grid = args.value("--grid").value_or("");
    r.tolerance = args.values("--tolerance");
    if (r.functions.empty())
        throw UsageError("--function is required: a cache entry belongs to named kernels (--function NAME)");
    return normalized(r);
}

RegisteredKernel registered_kernel_from(const Args& args, const std::string& kernel_path) {
    return make_registered_kernel(read_source_file(kernel_path), registration_from(args), grammar_options_from(args));
}

std::vector<int> architectures_from(const Args& args) {
    std::vector<int> out;
    for (const std::string& text : args.values("--arch")) {
        const int arch = parse_architecture(text, "--arch");
        for (const int seen : out)
            if (seen == arch) throw UsageError("--arch " + text + " is given twice");
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
