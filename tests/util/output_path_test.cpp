// util/output_path: the one rule every output of a command follows (issue 39, class 5).
#include "util/output_path.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

class OutputRule : public ::testing::Test {
protected:
    void SetUp() override {
        dir = test::fresh_temp_dir("gi-output-path-test");
        fs::create_directories(dir / "cache");
        kernel = dir / "k.cu";
        std::ofstream(kernel) << "__global__ void k() {}\n";
        std::ofstream(dir / "cache" / "k.sm_90.xml") << "<entry/>";
        guard.keep(kernel, "the kernel file").keep(dir / "absent.cu", "a file not there").keep_cache_folder(dir / "cache");
    }
    // The message of the refusal, "" when the output is allowed.
    std::string refusal(const fs::path& output, const std::string& option = "-o") {
        try {
            guard.check(option, output, "the page");
        } catch (const UsageError& e) {
            return e.what();
        }
        return "";
    }
    fs::path dir, kernel;
    OutputGuard guard;
};

TEST_F(OutputRule, AnOutputIsNeverAFileTheCommandKeepsUnderAnyName) {
    EXPECT_EQ(refusal(kernel), "-o " + kernel.string() + " is the kernel file itself; write the page to another file");
    fs::create_symlink(kernel, dir / "link.cu");
    const std::string through_link = refusal(dir / "link.cu");
    EXPECT_NE(through_link.find("is the kernel file itself; write the page to another file ("), std::string::npos)
        << through_link;
    EXPECT_NE(through_link.find("is another name of " + kernel.string()), std::string::npos) << through_link;
    fs::create_hard_link(kernel, dir / "hard.cu");
    EXPECT_NE(refusal(dir / "hard.cu").find("is the kernel file itself"), std::string::npos);
    EXPECT_NE(refusal(dir / "." / "k.cu").find("is the kernel file itself"), std::string::npos);
}

TEST_F(OutputRule, NoOutputIsAnEntryOfACacheFolderExistingOrNot) {
    for (const fs::path& output : {dir / "cache" / "k.sm_90.xml", dir / "cache" / "new.xml", dir / "cache" / "." / "x.xml"}) {
        const std::string message = refusal(output, "--html");
        EXPECT_NE(message.find("would be an entry of the cache folder"), std::string::npos) << output << ": " << message;
        EXPECT_EQ(message.rfind("--html " + output.string(), 0), 0u) << message;
    }
    EXPECT_EQ(refusal(dir / "cache" / "review.html"), "");  // not read as an entry
    EXPECT_EQ(refusal(dir / "elsewhere.xml"), "");
}

TEST_F(OutputRule, TwoOutputsOfOneCommandAreNeverOneFileAndAFolderIsNoFile) {
    EXPECT_EQ(refusal(dir / "gen" / "k.gi.cu", "--wrapper"), "");
    const std::string message = refusal(dir / "gen" / ".." / "gen" / "k.gi.cu", "--header");
    EXPECT_NE(message.find("is also the file of --wrapper"), std::string::npos) << message;
    EXPECT_NE(refusal(dir / "cache").find("is a folder; give the file to write the page to"), std::string::npos);
    EXPECT_EQ(refusal(dir / "absent.cu"), "");  // kept, but not there: nothing to lose
}

}  // namespace
}  // namespace gi
