// One spelling for --arch (issue 43: evolve took sm_90 only, the cache commands 90 or sm_90). Every
// command reads an architecture with the cache's parser (cache/registration.hpp's
// parse_architecture, through CommandLine::add_architecture or cli/cache_options.hpp's
// architectures_from): 90, sm_90 and compute_90 all mean sm_90, --help says so, and a bad value is
// a usage error that names it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "cli/command_line.hpp"
#include "help_pages.hpp"
#include "process/process.hpp"
#include "util/error.hpp"

namespace gi::cli {
namespace {
namespace fs = std::filesystem;

std::string arch_option_parsed(const std::string& value) {
    std::string arch;
    CommandLine app("usage: test\n", "");
    app.add_architecture("--arch", arch, "architecture");
    app.parse({"--arch", value});
    return arch;
}

TEST(ArchOption, ANumberAndItsNameMeanTheSame) {
    EXPECT_EQ(arch_option_parsed("90"), "sm_90");
    EXPECT_EQ(arch_option_parsed("sm_90"), "sm_90");
    EXPECT_EQ(arch_option_parsed("compute_80"), "sm_80");
    EXPECT_EQ(arch_option_parsed("100"), "sm_100");
}

TEST(ArchOption, ABadValueIsAUsageErrorNamingIt) {
    for (const std::string bad : {"sm90", "90a", "sm_", "x", "9"}) {
        try {
            arch_option_parsed(bad);
            ADD_FAILURE() << "--arch " << bad << " was taken";
        } catch (const UsageError& e) {
            EXPECT_EQ(std::string(e.what()).rfind("--arch '" + bad + "' is not a CUDA architecture", 0), 0u) << e.what();
        }
    }
}

TEST(ArchOption, EveryHelpThatTakesArchSaysBothSpellings) {
    int pages = 0;
    for (const test::HelpPage& page : test::gi_tool_help_pages()) {
        if (page.text.find("--arch") == std::string::npos) continue;
        ++pages;
        EXPECT_NE(page.text.find("90 or sm_90"), std::string::npos) << test::shown_command(page.command) << " --help:\n" << page.text;
    }
    EXPECT_GE(pages, 8) << "evolve, cuda-bench, mutants, record, accept and the cache's verify, write, key and apply take --arch";
}

// Each command that takes --arch, on a small kernel, with the rest of a command line that gets past
// reading the architecture in a second: a compiler that only logs its words and fails, missing
// cases, a program that records nothing.
class ArchOptionCommands : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(dir_);
        std::ofstream(nvcc_) << "#!/bin/sh\necho \"$@\" >> '" << (dir_ / "nvcc.log").string() << "'\nexit 1\n";
        fs::permissions(nvcc_, fs::perms::owner_all, fs::perm_options::add);
    }

    std::vector<std::vector<std::string>> commands(const std::string& arch) const {
        const std::string k = kernel_.string(), d = dir_.string(), nvcc = nvcc_.string();
        const std::vector<std::string> a = {"--arch", arch};
        std::vector<std::vector<std::string>> c = {
            {"evolve", k, "--function", "scaleKernel", "--evaluator", "compile-only", "--nvcc", nvcc, "--out", d + "/run"},
            {"cuda-bench", k, "--function", "scaleKernel", "--cases", d + "/no-cases", "--nvcc", nvcc},
            {"mutants", k, "--function", "scaleKernel", "--count", "1", "--nvcc", nvcc},
            {"record", k, "--function", "scaleKernel", "--out", d + "/cases"},
            {"accept", k, "--function", "scaleKernel", "--reference", d + "/no-cases", "--out", d + "/accepted"},
            {"cache", "verify", d + "/cache", k, "--function", "scaleKernel"},
            {"cache", "write", k, "--function", "scaleKernel", "--cache-dir", d + "/cache", "--genome", ""},
            {"cache", "key", k, "--function", "scaleKernel"},
            {"cache", "apply", k, "--function", "scaleKernel", "--cache-dir", d + "/cache", "--wrapper", d + "/k.gi.cu",
             "--header", d + "/k.gi.h", "--options-file", d + "/k.options"},
        };
        for (std::vector<std::string>& command : c) {
            command.insert(command.end(), a.begin(), a.end());
            if (command[0] == "record" || command[0] == "accept") command.insert(command.end(), {"--", "/bin/true"});
        }
        return c;
    }

    std::string nvcc_log() const { return test::file_text(dir_ / "nvcc.log"); }

    const fs::path kernel_ = fs::path(GI_TEST_DATA_DIR) / "cache" / "scale.cu";
    const fs::path dir_ = test::fresh_temp_dir("gi-arch-option");
    const fs::path nvcc_ = dir_ / "nvcc";
};

TEST_F(ArchOptionCommands, EachTakesANumberAndAnSmName) {
    for (const std::string arch : {"90", "sm_90"}) {
        for (const std::vector<std::string>& command : commands(arch)) {
            const ProcessResult r = test::gi_tool(command);
            EXPECT_NE(r.exit_code, 2) << test::shown_command(command) << ":\n" << r.err;
            EXPECT_EQ(r.err.find("--arch"), std::string::npos) << test::shown_command(command) << ":\n" << r.err;
        }
    }
    // The compilers got nvcc's spelling, whichever was given (evolve, cuda-bench and mutants compile).
    EXPECT_NE(nvcc_log().find("-arch=sm_90"), std::string::npos) << nvcc_log();
    EXPECT_EQ(nvcc_log().find("-arch=90"), std::string::npos) << nvcc_log();
    EXPECT_EQ(test::gi_tool({"cache", "key", kernel_.string(), "--function", "scaleKernel", "--arch", "90"}).out,
              test::gi_tool({"cache", "key", kernel_.string(), "--function", "scaleKernel", "--arch", "sm_90"}).out);
}

TEST_F(ArchOptionCommands, EachNamesABadValue) {
    for (const std::vector<std::string>& command : commands("sm9x")) {
        const ProcessResult r = test::gi_tool(command);
        EXPECT_EQ(r.exit_code, 2) << test::shown_command(command) << ":\n" << r.err;
        EXPECT_NE(r.err.find("--arch 'sm9x' is not a CUDA architecture"), std::string::npos)
            << test::shown_command(command) << ":\n" << r.err;
    }
}

}  // namespace
}  // namespace gi::cli
