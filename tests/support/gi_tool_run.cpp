#include "gi_tool_run.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <system_error>
#include <vector>

namespace gi::test {

ToolRun run_gi_tool(const std::string& arguments) {
    ToolRun run;
    const std::string command = "\"" + std::string(GI_TOOL_PATH) + "\" " + arguments + " 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return run;
    char buffer[4096];
    std::size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) run.output.append(buffer, n);
    const int status = ::pclose(pipe);
    run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return run;
}

ProcessResult gi_tool(std::vector<std::string> arguments) {
    arguments.insert(arguments.begin(), GI_TOOL_PATH);
    return run_process(arguments);
}

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void remove_at_exit(const std::filesystem::path& path) {
    struct Made {
        std::mutex mutex;
        std::vector<std::filesystem::path> paths;
        ~Made() {
            std::error_code ignored;
            for (const std::filesystem::path& p : paths) std::filesystem::remove_all(p, ignored);
        }
    };
    static Made made;
    const std::lock_guard lock(made.mutex);
    made.paths.push_back(path);
}

std::set<std::string> file_names(const std::filesystem::path& folder) {
    std::set<std::string> found;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) found.insert(entry.path().filename().string());
    return found;
}

std::filesystem::path fresh_temp_dir(const std::string& name) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / (name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    remove_at_exit(dir);
    return dir;
}

}  // namespace gi::test
