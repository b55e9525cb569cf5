// gi-tool evolve --help lists the options a person chooses a run by; --help-all adds the knobs kept
// for measurements and the CMake module (cli/command_line.hpp, Option::hidden), which still parse.
#include <gtest/gtest.h>

#include <string>

#include "../support/gi_tool_run.hpp"

namespace gi::test {
namespace {

bool lists(const std::string& help, const std::string& option) { return help.find("\n  " + option + " ") != std::string::npos; }

TEST(HelpAll, EvolveLeavesItsInternalKnobsToHelpAll) {
    const ProcessResult help = gi_tool({"evolve", "--help"});
    const ProcessResult all = gi_tool({"evolve", "--help-all"});
    ASSERT_TRUE(help.succeeded()) << help.err;
    ASSERT_TRUE(all.succeeded()) << all.err;
    for (const std::string option : {"--no-gate-overlap", "--target-architectures", "--gpu-turn-per-run",
                                     "--sanitize-sessions", "--run-binary-duplicates", "--worker"}) {
        EXPECT_FALSE(lists(help.out, option)) << option << " in evolve --help:\n" << help.out;
        EXPECT_TRUE(lists(all.out, option)) << option << " not in evolve --help-all:\n" << all.out;
    }
    for (const std::string option : {"--out", "--evaluator", "--time-limit", "--cases", "--held-out", "--strategy"}) {
        EXPECT_TRUE(lists(help.out, option)) << option << " not in evolve --help:\n" << help.out;
        EXPECT_TRUE(lists(all.out, option)) << option << " not in evolve --help-all:\n" << all.out;
    }
    EXPECT_NE(help.out.find("options for measurements and the CMake module not listed: --help-all lists them"),
              std::string::npos)
        << help.out;
}

// A retired A/B switch is an unknown option; a hidden one still parses (and is still refused where
// its evaluator does not apply).
TEST(HelpAll, RetiredSwitchesAreUnknownAndHiddenOnesStillParse) {
    for (const std::string retired : {"--no-compile-ahead", "--nvrtc-in-process", "--sanitize-shared-sessions"}) {
        const ProcessResult r = gi_tool({"evolve", "k.cu", "--evaluator", "fake", "--out", "o", retired});
        EXPECT_EQ(r.exit_code, 2) << retired;
        EXPECT_NE(r.err.find("unknown option '" + retired + "'"), std::string::npos) << r.err;
    }
    const std::string kernel = std::string(GI_SOURCE_DIR) + "/kernels/stereo/stereo.cu";
    const ProcessResult hidden = gi_tool({"evolve", kernel, "--function", "stereo_kernel", "--evaluator", "fake", "--out",
                                          fresh_temp_dir("help-all").string(), "--sanitize-batch", "3"});
    EXPECT_EQ(hidden.exit_code, 2);
    EXPECT_NE(hidden.err.find("option --sanitize-batch does not apply to --evaluator fake"), std::string::npos) << hidden.err;
}

}  // namespace
}  // namespace gi::test
