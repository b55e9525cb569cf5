#include "compile/nvcc_dryrun.hpp"

#include <cctype>
#include <optional>

#include "util/error.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

constexpr const char* kStepPrefix = "#$ ";

// "NAME=..." with NAME a variable name: nvcc's environment, not a command.
std::optional<std::pair<std::string, std::string>> assignment(const std::string& line) {
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) return std::nullopt;
    for (std::size_t i = 0; i < eq; ++i) {
        const unsigned char c = static_cast<unsigned char>(line[i]);
        if (!(std::isalnum(c) || c == '_') || (i == 0 && std::isdigit(c))) return std::nullopt;
    }
    return std::make_pair(line.substr(0, eq), join(shell_words(line.substr(eq + 1)), " "));
}

bool is_cicc(const std::string& program) {
    const std::size_t slash = program.find_last_of('/');
    return (slash == std::string::npos ? program : program.substr(slash + 1)) == "cicc";
}

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::string value_after(const std::vector<std::string>& words, const std::string& option) {
    for (std::size_t i = 0; i + 1 < words.size(); ++i)
        if (words[i] == option) return words[i + 1];
    return "";
}

std::vector<std::string> shell_words(const std::string& text) {
    std::vector<std::string> words;
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
        } else if (c == '"' || c == '\'') {
            in_word = true;
            for (++i; i < text.size() && text[i] != c; ++i) {
                if (c == '"' && text[i] == '\\' && i + 1 < text.size()) ++i;
                word += text[i];
            }
        } else if (c == '\\' && i + 1 < text.size()) {
            in_word = true;
            word += text[++i];
        } else {
            in_word = true;
            word += c;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

NvccTrajectory parse_nvcc_dryrun(const std::string& text) {
    NvccTrajectory trajectory;
    std::size_t start = 0;
    int number = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(start, end - start);
        start = end + 1;
        ++number;
        if (line.rfind(kStepPrefix, 0) != 0) continue;
        const std::string body = line.substr(3);
        if (body.rfind("--", 0) == 0)
            throw Error("nvcc --dryrun, line " + std::to_string(number) + ": step '" + excerpt(body) +
                        "' is nvcc's own and cannot be replayed (drop the option that asks for it)");
        if (auto variable = assignment(body); variable && trajectory.steps.empty()) {
            trajectory.environment.push_back(*variable);
            continue;
        }
        NvccStep step;
        step.command = body;
        const std::vector<std::string> words = shell_words(body);
        step.cleanup = !words.empty() && words.front() == "rm";
        if (!words.empty() && is_cicc(words.front())) {
            const std::string out = value_after(words, "-o");
            if (ends_with(out, ".ptx")) {
                step.ptx_output = out;
                step.virtual_arch = value_after(words, "-arch");
            }
        }
        trajectory.steps.push_back(std::move(step));
    }
    return trajectory;
}

NvccDependencySplit split_dependency_options(const std::vector<std::string>& args) {
    NvccDependencySplit split;
    std::string mode, file, target, output;
    bool phony = false;
    std::vector<std::string> rest;  // neither dependency options nor -c / -o
    auto takes = [&](std::size_t& i, const char* short_name, const char* long_name, std::string& value) {
        const std::string& a = args[i];
        for (const char* spelling : {short_name, long_name}) {
            const std::string name = spelling;
            if (a == name && i + 1 < args.size()) {
                value = args[++i];
                return true;
            }
            if (a.rfind(name + "=", 0) == 0) {
                value = a.substr(name.size() + 1);
                return true;
            }
        }
        return false;
    };
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "-MD" || a == "--generate-dependencies-with-compile") mode = "-M";
        else if (a == "-MMD" || a == "--generate-nonsystem-dependencies-with-compile") mode = "-MM";
        else if (a == "-MP" || a == "--generate-dependency-targets") phony = true;
        else if (takes(i, "-MF", "--dependency-output", file) || takes(i, "-MT", "--dependency-target-name", target)) {
        } else if (takes(i, "-o", "--output-file", output)) {
            split.compile.insert(split.compile.end(), {"-o", output});
        } else {
            split.compile.push_back(a);
            if (a != "-c" && a != "--compile") rest.push_back(a);
        }
    }
    if (mode.empty()) return split;
    if (output.empty()) throw Error("-MD or -MMD without -o: name the object, so the dependency file can name it");
    if (file.empty()) file = output.substr(0, output.find_last_of('.')) + ".d";
    split.depend = rest;
    split.depend.insert(split.depend.end(), {mode, "-MT", target.empty() ? output : target});
    if (phony) split.depend.push_back("-MP");
    split.depend.insert(split.depend.end(), {"-o", file});
    return split;
}

}  // namespace gi
