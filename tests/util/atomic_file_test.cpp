// util/atomic_file: every output is a new file renamed into place, never written through a link a
// stranger planted in a shared folder (issue 39, class 4), and killed writers' leftovers are found.
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

class AtomicWrite : public ::testing::Test {
protected:
    void SetUp() override {
        dir = test::fresh_temp_dir("gi-atomic-file-test");
        fs::create_directories(dir);
    }
    std::set<std::string> names() const { return test::file_names(dir); }
    fs::path dir;
};

TEST_F(AtomicWrite, ALinkPlantedWhereTheTemporaryWentIsNeverFollowed) {
    // The names earlier versions used: "FILE.tmp<pid>" here, "FILE.tmp" for generated files.
    const fs::path precious = dir / "precious.txt";
    std::ofstream(precious) << "the user's";
    const fs::path target = dir / "report.html";
    fs::create_symlink(precious, target.string() + ".tmp" + std::to_string(::getpid()));
    fs::create_symlink(precious, target.string() + ".tmp");
    write_file_atomically(target, "the page");
    EXPECT_EQ(test::file_text(precious), "the user's");
    EXPECT_EQ(test::file_text(target), "the page");
    EXPECT_FALSE(fs::is_symlink(target));
}

TEST_F(AtomicWrite, ALinkAtTheTargetIsReplacedNotWrittenThrough) {
    const fs::path precious = dir / "precious.txt";
    std::ofstream(precious) << "the user's";
    fs::create_symlink(precious, dir / "out.txt");
    write_file_atomically(dir / "out.txt", "new");
    EXPECT_EQ(test::file_text(precious), "the user's");
    EXPECT_FALSE(fs::is_symlink(dir / "out.txt"));
    EXPECT_EQ(test::file_text(dir / "out.txt"), "new");
}

// A scratch file (not flushed to disk: the original's reference outputs) is still all-or-nothing:
// a new file renamed into place, a planted link not followed, no temporary left.
TEST_F(AtomicWrite, AScratchFileIsRenamedIntoPlaceLikeAnyOther) {
    const fs::path precious = dir / "precious.txt";
    std::ofstream(precious) << "the user's";
    fs::create_symlink(precious, dir / "case-0.ref");
    write_file_atomically(dir / "case-0.ref", std::string(1 << 20, 'r'), Durability::Scratch);
    EXPECT_EQ(test::file_text(precious), "the user's");
    EXPECT_FALSE(fs::is_symlink(dir / "case-0.ref"));
    EXPECT_EQ(test::file_text(dir / "case-0.ref"), std::string(1 << 20, 'r'));
    EXPECT_EQ(names(), (std::set<std::string>{"case-0.ref", "precious.txt"}));
}

TEST_F(AtomicWrite, WritersOfOneFileAtOnceNeverShareATemporary) {
    // Eight writers, each its own content: every write succeeds, the file is one of them whole.
    const fs::path target = dir / "k.gi.cu";
    std::vector<std::string> errors(8);
    std::vector<std::thread> writers;
    for (int w = 0; w < 8; ++w)
        writers.emplace_back([&, w] {
            for (int round = 0; round < 40; ++round) {
                try {
                    write_file_atomically(target, std::string(1000 + w, static_cast<char>('a' + w)));
                } catch (const Error& e) {
                    errors[w] = e.what();
                }
            }
        });
    for (std::thread& t : writers) t.join();
    for (const std::string& e : errors) EXPECT_EQ(e, "");
    const std::string text = test::file_text(target);
    ASSERT_GE(text.size(), 1000u);
    EXPECT_EQ(text, std::string(text.size(), text[0]));
    EXPECT_EQ(names(), std::set<std::string>{"k.gi.cu"}) << "a temporary was left behind";
}

TEST_F(AtomicWrite, AFailedWriteNamesTheReasonAndLeavesNothing) {
    try {
        write_file_atomically(dir / "missing" / "f.txt", "x");
        FAIL() << "wrote into a folder that does not exist";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(names().empty());
}

TEST_F(AtomicWrite, TheTemporariesOfKilledWritersAreRecognisedAndRemoved) {
    EXPECT_TRUE(is_atomic_write_temporary("run.xml.tmp-h3Xq9Z"));
    EXPECT_TRUE(is_atomic_write_temporary("run.xml.tmp4711"));  // an earlier version's
    for (const char* other : {"notes.tmp", "run.xml.tmp-", "run.xml.tmp-abc", "run.xml.tmp-h3Xq9Z7", ".tmp-h3Xq9Z",
                              "run.xml.tmp-h3X.9Z", "run.xml", "a.tmp12x"})
        EXPECT_FALSE(is_atomic_write_temporary(other)) << other;
    for (const char* name : {"run.xml.tmp-h3Xq9Z", "checkpoint.xml.tmp4711", "notes.tmp", "run.xml"})
        std::ofstream(dir / name) << "x";
    fs::create_directories(dir / "folder.tmp-abcdef");
    fs::create_symlink(dir / "run.xml", dir / "best.cu.tmp-Zz0000");  // not ours: ours are never links
    EXPECT_EQ(remove_abandoned_temporaries(dir), 2);
    EXPECT_EQ(names(), (std::set<std::string>{"notes.tmp", "run.xml", "folder.tmp-abcdef", "best.cu.tmp-Zz0000"}));
}

TEST_F(AtomicWrite, EveryWriteLeavesOnlyItsTarget) {
    for (int i = 0; i < 3; ++i) write_file_atomically(dir / "f.txt", std::to_string(i));
    EXPECT_EQ(test::file_text(dir / "f.txt"), "2");
    EXPECT_EQ(names(), std::set<std::string>{"f.txt"});
}

}  // namespace
}  // namespace gi
