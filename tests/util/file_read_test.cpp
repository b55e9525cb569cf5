#include "util/file_read.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "source/source_file.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

std::string read_error_of(const std::filesystem::path& path, std::uintmax_t limit) {
    try {
        read_input_file(path, limit, "kernel source");
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

class FileRead : public ::testing::Test {
protected:
    // A folder of this process's own: ctest runs the tests of this suite in parallel processes,
    // which got the same random seed and so shared (and removed) one folder.
    void SetUp() override {
        dir = std::filesystem::temp_directory_path() / ("gi_file_read_test_" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
    }
    void TearDown() override { std::filesystem::remove_all(dir); }
    std::filesystem::path dir;
};

TEST_F(FileRead, ReadsAPlainFileExactly) {
    const auto path = dir / "k.cu";
    std::ofstream(path, std::ios::binary) << std::string("a\0b\r\n", 5);
    EXPECT_EQ(read_input_file(path, 100, "kernel source"), std::string("a\0b\r\n", 5));
    EXPECT_EQ(read_input_file(path, 5, "kernel source").size(), 5u);  // the limit itself is allowed
}

TEST_F(FileRead, RefusesAFileOverTheLimitNamingSizeAndLimit) {
    const auto path = dir / "big.cu";
    std::ofstream(path, std::ios::binary) << std::string(101, 'x');
    const std::string message = read_error_of(path, 100);
    EXPECT_NE(message.find("big.cu"), std::string::npos) << message;
    EXPECT_NE(message.find("101 bytes"), std::string::npos) << message;
    EXPECT_NE(message.find("100"), std::string::npos) << message;
}

TEST_F(FileRead, RefusesFoldersMissingFilesAndDevices) {
    EXPECT_NE(read_error_of(dir, 100).find("is a folder"), std::string::npos) << read_error_of(dir, 100);
    EXPECT_NE(read_error_of(dir / "missing.cu", 100).find("missing.cu: cannot read"), std::string::npos);
    if (std::filesystem::exists("/dev/urandom")) {
        // A device never ends: refused at once instead of read until memory runs out.
        const auto start = std::chrono::steady_clock::now();
        const std::string message = read_error_of("/dev/urandom", 100);
        EXPECT_NE(message.find("not a regular file"), std::string::npos) << message;
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    }
}

TEST_F(FileRead, FollowsALinkToAFile) {
    const auto target = dir / "real.cu";
    std::ofstream(target) << "x";
    std::error_code ec;
    std::filesystem::create_symlink(target, dir / "link.cu", ec);
    if (ec) GTEST_SKIP() << "cannot create a symbolic link here: " << ec.message();
    EXPECT_EQ(read_input_file(dir / "link.cu", 100, "kernel source"), "x");
}

TEST_F(FileRead, KernelSourcesAreLimitedBeforeTheyAreRead) {
    const auto path = dir / "huge.cu";
    {
        std::ofstream out(path, std::ios::binary);
        out.seekp(static_cast<std::streamoff>(kMaxSourceBytes));  // sparse: no real disk use
        out.put('\n');
    }
    try {
        read_source_file(path);
        FAIL() << "a kernel file over the limit was read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("huge.cu: the kernel source has"), std::string::npos) << e.what();
    }
}

TEST_F(FileRead, AFifoIsRefusedWithoutWaitingForAWriter) {
    const auto path = dir / "genome.fifo";
    ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_NE(read_error_of(path, 100).find("not a regular file (a device or a pipe?)"), std::string::npos);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(FileRead, InPiecesHandsOverTheWholeFileInOrderUnderTheSameGuard) {
    const auto path = dir / "blob.bin";
    std::string content;
    for (int i = 0; i < (9 << 20); ++i) content += static_cast<char>(i * 7);  // more than two pieces
    std::ofstream(path, std::ios::binary) << content;
    std::string seen;
    int pieces = 0;
    const auto bytes = read_input_file_in_pieces(path, content.size(), "test-case data", [&](const char* data, std::size_t n) {
        seen.append(data, n);
        ++pieces;
    });
    EXPECT_EQ(bytes, content.size());
    EXPECT_EQ(seen, content);
    EXPECT_GE(pieces, 3);
    EXPECT_THROW(read_input_file_in_pieces(path, content.size() - 1, "test-case data", [](const char*, std::size_t) {}), Error);
    EXPECT_THROW(read_input_file_in_pieces(dir, 100, "test-case data", [](const char*, std::size_t) {}), Error);
}

}  // namespace
}  // namespace gi
