#include "registered_kernels.hpp"

#include <fstream>
#include <regex>
#include <sstream>

#include "util/error.hpp"
#include "process/process.hpp"

namespace gi::test {
namespace fs = std::filesystem;

std::vector<KernelFile> registered_kernels() {
    std::vector<KernelFile> out;
    for (const auto& entry : fs::directory_iterator(fs::path(GI_SOURCE_DIR) / "kernels")) {
        const fs::path registration = entry.path() / "registration.txt";
        if (!fs::exists(registration)) continue;
        std::ifstream in(registration);
        std::string line, kernel, function;
        while (std::getline(in, line)) {
            std::istringstream words(line);
            std::string key, value;
            words >> key >> value;
            if (key == "kernel") kernel = value;
            if (key == "function") function = value;
        }
        if (!kernel.empty()) out.push_back({entry.path() / kernel, function});
    }
    return out;
}

std::vector<KernelFile> kernels_with_loops() {
    const std::regex loop(R"(\b(for|while)\s*\()");
    std::vector<KernelFile> out;
    for (const KernelFile& k : registered_kernels()) {
        const std::string text = read_all(k.path);
        const std::regex template_kernel("template\\s*<[^>]*>\\s*__global__\\s+void\\s+" + k.function + "\\s*\\(");
        if (std::regex_search(text, loop) && !std::regex_search(text, template_kernel)) out.push_back(k);
    }
    return out;
}

std::string read_all(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string entry_ptx(const std::string& ptx, const std::string& function) {
    for (std::size_t at = ptx.find(".entry "); at != std::string::npos; at = ptx.find(".entry ", at + 1)) {
        const std::size_t end = ptx.find(".entry ", at + 1);
        const std::string body = ptx.substr(at, end == std::string::npos ? std::string::npos : end - at);
        const std::string head = body.substr(0, body.find('('));
        if (head.find(function) != std::string::npos) return body;
    }
    return "";
}

std::vector<std::string> options_with_live_loops(const KernelFile& k) {
    if (k.path.filename() == "hydro.cu") return {"-DMANIFEST_INTERP=1", "-DMANIFEST_FLUX=1"};
    return {};
}

std::string kernel_ptx(const std::string& nvcc, const KernelFile& k, const std::string& text, const fs::path& dir) {
    const fs::path source = dir / k.path.filename();
    const fs::path ptx = dir / (k.path.stem().string() + ".ptx");
    std::ofstream(source, std::ios::binary) << text;
    std::vector<std::string> argv{nvcc, "-ptx", "-arch=sm_90", "-I", k.path.parent_path().string()};
    for (const std::string& option : options_with_live_loops(k)) argv.push_back(option);
    argv.insert(argv.end(), {source.string(), "-o", ptx.string()});
    const ProcessResult r = run_process(argv);
    if (r.exit_code != 0) throw Error(source.string() + ": nvcc -ptx failed:\n" + r.out + r.err);
    return read_all(ptx);
}

}  // namespace gi::test
