// util/folder_lock: the lock file of an output folder is gi-tool's own plain file; a link or a
// second name of another file planted there is refused and left as it is (issue 39, class 4).
#include "util/folder_lock.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "../support/gi_tool_run.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

class FolderLockFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir = test::fresh_temp_dir("gi-folder-lock-test");
        fs::create_directories(dir / "run");
        precious = dir / "precious.txt";
        std::ofstream(precious) << "the user's";
    }
    std::string refusal() const {
        try {
            FolderLock lock(dir / "run", "the test");
        } catch (const Error& e) {
            return e.what();
        }
        return "locked";
    }
    fs::path dir, precious;
};

TEST_F(FolderLockFile, ALockFileThatIsASymbolicLinkIsRefusedAndItsTargetKept) {
    fs::create_symlink(precious, dir / "run" / FolderLock::kFileName);
    const std::string message = refusal();
    EXPECT_NE(message.find(".gi-lock: is a symbolic link, not gi-tool's lock file"), std::string::npos) << message;
    EXPECT_EQ(test::file_text(precious), "the user's");
    EXPECT_TRUE(fs::is_symlink(dir / "run" / FolderLock::kFileName));
}

TEST_F(FolderLockFile, ALockFileThatIsAHardLinkOrAFifoIsRefused) {
    fs::create_hard_link(precious, dir / "run" / FolderLock::kFileName);
    std::string message = refusal();
    EXPECT_NE(message.find("is not a plain file of its own"), std::string::npos) << message;
    EXPECT_EQ(test::file_text(precious), "the user's");
    fs::remove(dir / "run" / FolderLock::kFileName);
    ASSERT_EQ(::mkfifo((dir / "run" / FolderLock::kFileName).c_str(), 0644), 0);
    const auto start = std::chrono::steady_clock::now();
    message = refusal();
    EXPECT_NE(message.find("is not a plain file of its own"), std::string::npos) << message;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(FolderLockFile, ItsOwnLockFileIsReusedRunAfterRun) {
    { FolderLock lock(dir / "run", "first"); }
    { FolderLock lock(dir / "run", "second"); }
    EXPECT_NE(test::file_text(dir / "run" / FolderLock::kFileName).find(": second"), std::string::npos);
}

}  // namespace
}  // namespace gi
