#include "corpus_driver.hpp"

#include "compile/nvcc_compiler.hpp"

namespace gi::test {

ProcessResult build_corpus_driver(const std::string& kernel, const std::filesystem::path& kernel_file,
                                  const std::filesystem::path& binary, const std::vector<std::string>& defines) {
    const std::string root = GI_SOURCE_DIR;
    const std::string dir = root + "/kernels/" + kernel;
    std::vector<std::string> argv{find_nvcc(), "-O3", "-std=c++17", "-arch=native", "-diag-suppress=177"};
    for (const std::string& d : defines) argv.push_back("-D" + d);
    argv.insert(argv.end(), {"-I", root + "/kernels", "-I", root + "/gi-tool/src", dir + "/" + kernel + "_driver.cu",
                             kernel_file.string(), dir + "/reference.cpp", "-o", binary.string()});
    ProcessOptions options;
    options.timeout = std::chrono::minutes(3);
    return run_process(argv, options);
}

ProcessResult run_corpus_driver(const std::filesystem::path& binary, const std::vector<std::string>& args) {
    std::vector<std::string> argv{binary.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessOptions options;
    options.timeout = std::chrono::minutes(1);
    return run_process(argv, options);
}

}  // namespace gi::test
