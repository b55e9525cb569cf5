// cache/files: the generated build inputs (wrapper, header, options, variants, review pages) are
// written as every output is: never through a planted link, never half, never leaving a
// temporary, each writer its own (issue 39, classes 4, 10, 22).
#include "cache/files.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "../support/gi_tool_run.hpp"
#include "cache/entry.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

namespace fs = std::filesystem;

// A "disk" that takes `bytes` per file: writes past it fail with EFBIG, as on a full disk.
class CacheFilesSizeLimit {
public:
    explicit CacheFilesSizeLimit(rlim_t bytes) {
        ::getrlimit(RLIMIT_FSIZE, &saved_);
        old_handler_ = ::signal(SIGXFSZ, SIG_IGN);
        rlimit limited = saved_;
        limited.rlim_cur = bytes;
        ::setrlimit(RLIMIT_FSIZE, &limited);
    }
    ~CacheFilesSizeLimit() {
        ::setrlimit(RLIMIT_FSIZE, &saved_);
        ::signal(SIGXFSZ, old_handler_);
    }

private:
    rlimit saved_{};
    sighandler_t old_handler_;
};

class GeneratedFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir = test::fresh_temp_dir("gi-cache-files-test");
        fs::create_directories(dir);
    }
    std::set<std::string> names() const { return test::file_names(dir); }
    fs::path dir;
};

TEST_F(GeneratedFiles, ALinkPlantedAsTheTemporaryIsNeverFollowed) {
    const fs::path precious = dir / "precious.txt";
    std::ofstream(precious) << "the user's";
    fs::create_symlink(precious, dir / "review.html.tmp");  // the name every writer used to share
    EXPECT_TRUE(write_file_if_changed(dir / "review.html", "<html>page</html>"));
    EXPECT_EQ(test::file_text(precious), "the user's");
    EXPECT_EQ(test::file_text(dir / "review.html"), "<html>page</html>");
    EXPECT_FALSE(fs::is_symlink(dir / "review.html"));
}

TEST_F(GeneratedFiles, AFullDiskLeavesTheOldFileNoTemporaryAndSaysWhy) {
    const fs::path wrapper = dir / "k.gi.cu";
    ASSERT_TRUE(write_file_if_changed(wrapper, "old"));
    try {
        const CacheFilesSizeLimit full(100);
        write_file_if_changed(wrapper, std::string(5000, 'x'));
        ADD_FAILURE() << "a write past the limit succeeded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("File too large"), std::string::npos) << e.what();
    }
    EXPECT_EQ(test::file_text(wrapper), "old");
    EXPECT_EQ(names(), std::set<std::string>{"k.gi.cu"}) << "a temporary was left behind";
}

TEST_F(GeneratedFiles, AFullDiskLeavesNoHalfCacheEntryInTheCommittedFolder) {
    CacheEntry entry;
    entry.kernel_file = "k.cu";
    entry.architecture = 90;
    entry.key = std::string(64, 'a');
    entry.source_sha256 = std::string(64, 'b');
    entry.grammar_version = 1;
    entry.registration.functions = {"k"};
    entry.provenance.origin = "hand-picked";
    entry.provenance.note = std::string(3000, 'n');
    seal(entry);
    try {
        const CacheFilesSizeLimit full(1000);
        write_cache_entry(dir / "k.sm_90.xml", entry);
        ADD_FAILURE() << "a write past the limit succeeded";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("File too large"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(names().empty()) << "left in the cache folder: " << *names().begin();
}

TEST_F(GeneratedFiles, EightWritersOfTheSameOutputsAllSucceed) {
    // As eight `cache apply` of one target at once (a parallel build, issue 39 A25).
    std::vector<std::string> errors(8);
    std::vector<std::thread> writers;
    for (int w = 0; w < 8; ++w)
        writers.emplace_back([&, w] {
            for (int round = 0; round < 50; ++round) {
                try {
                    write_file_if_changed(dir / "k.gi.cu", "wrapper " + std::to_string((w + round) % 3));
                } catch (const Error& e) {
                    errors[w] = e.what();
                }
            }
        });
    for (std::thread& t : writers) t.join();
    for (const std::string& e : errors) EXPECT_EQ(e, "");
    EXPECT_EQ(names(), std::set<std::string>{"k.gi.cu"});
}

TEST_F(GeneratedFiles, UnchangedContentIsNotRewrittenAndAFifoIsReplacedNotRead) {
    const fs::path header = dir / "k.gi.h";
    ASSERT_TRUE(write_file_if_changed(header, "same"));
    const auto written = fs::last_write_time(header);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    EXPECT_FALSE(write_file_if_changed(header, "same"));
    EXPECT_EQ(fs::last_write_time(header), written);
    const fs::path options = dir / "k.options";
    ASSERT_EQ(::mkfifo(options.c_str(), 0644), 0);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_TRUE(write_file_if_changed(options, "-lineinfo\n"));
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_TRUE(fs::is_regular_file(options));
}

}  // namespace
}  // namespace gi
