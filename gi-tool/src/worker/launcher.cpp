#include "worker/launcher.hpp"

#include <sys/wait.h>

#include "util/error.hpp"

namespace gi::worker {

std::vector<std::string> split_launcher_command(const std::string& text, const std::string& option) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote == '\'') {
            if (c == '\'') quote = 0;
            else word += c;
        } else if (quote == '"') {
            if (c == '"') quote = 0;
            else if (c == '\\' && i + 1 < text.size() && std::string("\\\"$`").find(text[i + 1]) != std::string::npos) word += text[++i];
            else word += c;
        } else if (c == '\'' || c == '"') {
            quote = c;
            in_word = true;
        } else if (c == '\\' && i + 1 < text.size()) {
            word += text[++i];
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (quote)
        throw UsageError(option + " \"" + text + "\": the quote " + std::string(1, quote) +
                         " is not closed (the launcher is split into words as a shell would, without running one)");
    if (in_word) words.push_back(word);
    if (words.empty())
        throw UsageError(option + " needs a command, e.g. \"srun --gres=gpu:1 -N1 -n1 --quiet\" or \"ssh gpu-node\"");
    return words;
}

std::vector<std::string> launched_command(const std::vector<std::string>& launcher, const std::map<std::string, std::string>& env,
                                          const std::string& executable, const std::vector<std::string>& args) {
    std::vector<std::string> argv = launcher;
    if (!env.empty()) {
        argv.push_back("env");
        for (const auto& [name, value] : env) argv.push_back(name + "=" + value);
    }
    argv.push_back(executable);
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

bool launcher_lost(int wait_status, bool answered) {
    if (WIFSIGNALED(wait_status)) return true;
    if (WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 255) return true;
    return !answered;
}

}  // namespace gi::worker
