#include "record/intercept_settings.hpp"

#include <algorithm>
#include <fstream>

#include "util/format.hpp"
#include "worker/kernel_name.hpp"

namespace gi {
namespace {

std::string trimmed(const std::string& text) {
    const std::size_t first = text.find_first_not_of(" \t");
    if (first == std::string::npos) return "";
    return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

std::vector<ParameterType> types_of(const std::vector<std::string>& texts) {
    std::vector<ParameterType> types;
    for (const std::string& text : texts) types.push_back(parameter_type(text));
    return types;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> intercept_environment(const InterceptSettings& settings) {
    std::vector<std::pair<std::string, std::string>> variables = {{"GI_RECORD_BY", "intercept"},
                                                                   {"GI_RECORD_FUNCTION", settings.kernel}};
    if (settings.signature) variables.emplace_back("GI_RECORD_SIGNATURE", join(*settings.signature, ";"));
    return variables;
}

std::optional<InterceptSettings> intercept_settings(const EnvironmentLookup& lookup) {
    const char* dir = lookup("GI_RECORD_DIR");
    const char* kernel = lookup("GI_RECORD_FUNCTION");
    const char* by = lookup("GI_RECORD_BY");
    if (!dir || !*dir || !kernel || !*kernel || !by || std::string(by) != "intercept") return std::nullopt;
    InterceptSettings settings;
    settings.kernel = kernel;
    if (const char* signature = lookup("GI_RECORD_SIGNATURE")) {
        settings.signature.emplace();
        // "" is a kernel without parameters.
        const std::string text = signature;
        for (std::size_t start = 0; !trimmed(text).empty();) {
            const std::size_t end = text.find(';', start);
            settings.signature->push_back(trimmed(text.substr(start, end == std::string::npos ? end : end - start)));
            if (end == std::string::npos) break;
            start = end + 1;
        }
    }
    return settings;
}

bool records_kernel(const InterceptSettings& settings, const std::string& mangled) {
    return worker::kernel_name_matches(settings.kernel, mangled, worker::demangled_name(mangled));
}

std::string launched_kernel_name(const std::string& mangled) {
    const std::string demangled = worker::demangled_name(mangled);
    if (demangled == mangled) return mangled;
    const std::string instance = worker::kernel_instantiation_name(demangled);
    return instance.empty() ? demangled : instance;
}

std::optional<std::vector<ParameterType>> launched_parameter_types(const InterceptSettings& settings,
                                                                   const std::string& mangled) {
    if (mangled.rfind("_Z", 0) == 0)
        if (const auto texts = demangled_parameters(worker::demangled_name(mangled))) return types_of(*texts);
    if (settings.signature) return types_of(*settings.signature);
    return std::nullopt;
}

std::vector<std::string> read_side_file(const std::filesystem::path& dir, const char* name) {
    std::vector<std::string> lines;
    std::ifstream in(dir / name);
    for (std::string line; std::getline(in, line);)
        if (!line.empty() && std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    return lines;
}

std::string launched_kernels_text(const std::vector<std::string>& launched, const std::string& kernel) {
    if (launched.empty())
        return "the launch intercept saw no kernel launched (a program that launches its kernels only inside CUDA "
               "graphs, a setuid program or a statically linked one cannot be seen: launch the kernel through "
               "gi::launch and record with --record-with launch)";
    constexpr std::size_t kShown = 12;
    std::vector<std::string> shown;
    for (std::size_t i = 0; i < launched.size() && i < kShown; ++i) shown.push_back(excerpt(launched[i]));
    std::string list = join(shown, ", ");
    if (launched.size() > kShown) list += " and " + std::to_string(launched.size() - kShown) + " more";
    return "the program launched " + list + " but not '" + excerpt(kernel) + "'";
}

}  // namespace gi
