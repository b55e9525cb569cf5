// Every example in gi-tool's --help pages is a command line that works from the repository's root
// (issue 43: seven of them named a function, stereoKernel, that no kernel has). Each example is run,
// in order, in a scratch folder, with the repository's files it names (kernels/..., consumer-example/
// ...) given by their full path: none may be a usage error. Many cannot finish here (they need a GPU,
// a program or recorded cases the repository does not hold, or take minutes), so each runs for a few
// seconds at most, well past parsing. And what an example says about a kernel is checked on its own:
// its kernel file, functions, parameters, flags and genome must make a variant (`gi-tool apply`).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <sstream>

#include "../support/gi_tool_run.hpp"
#include "cli/kernel_args.hpp"
#include "help_pages.hpp"
#include "process/process.hpp"

namespace gi {
namespace {
namespace fs = std::filesystem;

// Pages without an example, and why.
const std::vector<std::string> kPagesWithoutExample = {
    "gi-tool version",  // takes no options
};

struct HelpExample {
    std::string page;                // "gi-tool cache write"
    std::string text;                // as --help prints it, continuation lines joined
    std::vector<std::string> words;  // after "gi-tool", as a shell would split them
    std::string problem;             // why the words could not be read ("" when they could)
};

// Shell words: blanks split, '...' is literal, "..." is literal but for \" and \\. Anything a
// shell would expand or run ($, `, |, ;, &, <, >) outside single quotes is a problem: an example
// is one gi-tool command line.
std::vector<std::string> help_example_words(const std::string& text, std::string& problem) {
    std::vector<std::string> words;
    const auto unreadable = [&](const std::string& why) {
        problem = why;
        return words;
    };
    std::string word;
    bool in_word = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == ' ' || c == '\t') {
            if (in_word) words.push_back(word);
            word.clear();
            in_word = false;
            continue;
        }
        in_word = true;
        if (c == '\'') {
            const std::size_t end = text.find('\'', i + 1);
            if (end == std::string::npos) return unreadable("unmatched '");
            word += text.substr(i + 1, end - i - 1);
            i = end;
        } else if (c == '"') {
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\' && i + 1 < text.size() && (text[i + 1] == '"' || text[i + 1] == '\\')) ++i;
                else if (text[i] == '$' || text[i] == '`') return unreadable("shell expansion inside \"...\"");
                word += text[i];
            }
            if (i == text.size()) return unreadable("unmatched \"");
        } else if (std::string("$`|;&<>\\").find(c) != std::string::npos) {
            return unreadable(std::string("'") + c + "' (an example is one gi-tool command line)");
        } else {
            word += c;
        }
    }
    if (in_word) words.push_back(word);
    return words;
}

// The lines under "example:" or "examples:" up to the next blank line; a line ending in " \" goes
// on in the next one.
std::vector<HelpExample> help_page_examples(const test::HelpPage& page) {
    std::vector<HelpExample> examples;
    std::istringstream lines(page.text);
    bool in_block = false;
    std::string pending;
    for (std::string line; std::getline(lines, line);) {
        if (line == "example:" || line == "examples:") {
            in_block = true;
            continue;
        }
        if (!in_block) continue;
        if (line.empty()) break;
        const std::size_t start = line.find_first_not_of(' ');
        pending += (pending.empty() ? "" : " ") + line.substr(start == std::string::npos ? line.size() : start);
        if (pending.size() >= 2 && pending.compare(pending.size() - 2, 2, " \\") == 0) {
            pending.resize(pending.size() - 2);
            continue;
        }
        HelpExample example{test::shown_command(page.command), pending, {}, ""};
        pending.clear();
        example.words = help_example_words(example.text, example.problem);
        if (example.problem.empty() && (example.words.empty() || example.words.front() != "gi-tool"))
            example.problem = "does not start with gi-tool";
        if (!example.words.empty()) example.words.erase(example.words.begin());
        examples.push_back(example);
    }
    return examples;
}

std::vector<HelpExample> every_help_example() {
    std::vector<HelpExample> examples;
    for (const test::HelpPage& page : test::gi_tool_help_pages()) {
        const std::vector<HelpExample> found = help_page_examples(page);
        const std::string shown = test::shown_command(page.command);
        const bool exempt = std::find(kPagesWithoutExample.begin(), kPagesWithoutExample.end(), shown) != kPagesWithoutExample.end();
        EXPECT_TRUE(exempt || !found.empty()) << shown << " --help has no example (or not under a line 'example:')";
        examples.insert(examples.end(), found.begin(), found.end());
    }
    return examples;
}

// The repository's files and folders the words name (kernels/stereo/stereo.cu), by their full path;
// the rest as they are, relative to the scratch folder: outputs, inputs an earlier example made
// there (cases/), and inputs nothing holds.
std::vector<std::string> with_repository_paths(const std::vector<std::string>& words, const fs::path& scratch) {
    std::vector<std::string> out;
    for (const std::string& word : words) {
        const bool path_like = !word.empty() && word[0] != '-' && word[0] != '/' && word.find('/') != std::string::npos;
        std::error_code ec;
        const fs::path in_repository = fs::path(GI_SOURCE_DIR) / word;
        const bool from_repository = path_like && !fs::exists(scratch / word, ec) && fs::exists(in_repository, ec);
        out.push_back(from_repository ? in_repository.string() : word);
    }
    return out;
}

bool is_kernel_file(const std::string& word) {
    const std::string ext = fs::path(word).extension().string();
    std::error_code ec;
    return (ext == ".cu" || ext == ".cuh") && fs::path(word).is_absolute() && fs::is_regular_file(word, ec);
}

// `gi-tool apply` of what the example says about its kernel: the file, the shared kernel options
// (cli/kernel_args.hpp) and the genome; empty when it names no kernel file of the repository.
std::vector<std::string> kernel_check_of(const std::vector<std::string>& words, const fs::path& variant) {
    std::vector<std::string> check = {"apply"};
    std::string genome;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (is_kernel_file(words[i]) && check.size() == 1) check.push_back(words[i]);
        if (words[i] == "--genome" && i + 1 < words.size()) genome = words[i + 1];
        for (const cli::KernelOption& option : cli::kernel_options()) {
            if (words[i] != option.name) continue;
            check.push_back(words[i]);
            if (option.flag == nullptr && i + 1 < words.size()) check.push_back(words[++i]);
        }
    }
    if (check.size() == 1 || !is_kernel_file(check[1])) return {};
    check.insert(check.end(), {"--genome", genome, "-o", variant.string()});
    return check;
}

TEST(HelpExamples, NoExampleIsAUsageError) {
    const std::vector<HelpExample> examples = every_help_example();
    const fs::path scratch = test::fresh_temp_dir("gi-help-examples");
    fs::create_directories(scratch);
    for (const HelpExample& example : examples) {
        if (!example.problem.empty()) {
            ADD_FAILURE() << example.page << " --help: example '" << example.text << "': " << example.problem;
            continue;
        }
        std::vector<std::string> argv = with_repository_paths(example.words, scratch);
        argv.insert(argv.begin(), GI_TOOL_PATH);
        ProcessOptions options;
        options.working_directory = scratch;
        options.timeout = std::chrono::seconds(4);  // parsing takes milliseconds; evolving takes minutes
        const ProcessResult r = run_process(argv, options);
        // Ran and ended as gi-tool ends, ok or failing (no GPU, no such program): not 2, a usage error.
        const bool parsed = r.timed_out || (r.signal == 0 && (r.exit_code == 0 || r.exit_code == 1));
        EXPECT_TRUE(parsed) << example.page << " --help: example "
                            << (r.exit_code == 2 ? "is a usage error" : "did not run as gi-tool runs") << " (exit "
                            << r.exit_code << ", signal " << r.signal << "):\n  " << example.text << "\n" << r.err;
    }
    EXPECT_FALSE(fs::is_empty(scratch)) << "the examples wrote nothing into " << scratch << ", the folder they ran in";
}

TEST(HelpExamples, ExamplesNameRealKernelsFunctionsParametersAndGenomes) {
    const std::vector<HelpExample> examples = every_help_example();
    const fs::path scratch = test::fresh_temp_dir("gi-help-example-kernels");
    fs::create_directories(scratch);
    int kernels = 0;
    for (const HelpExample& example : examples) {
        const std::vector<std::string> check = kernel_check_of(with_repository_paths(example.words, scratch), scratch / "variant.cu");
        if (check.empty()) continue;
        ++kernels;
        const ProcessResult r = test::gi_tool(check);
        EXPECT_TRUE(r.succeeded()) << example.page << " --help: the kernel this example names does not apply:\n  "
                                   << example.text << "\n" << r.err;
    }
    EXPECT_GE(kernels, 10) << "fewer examples name a kernel of the repository than the commands that take one";
}

}  // namespace
}  // namespace gi
