#include "util/atomic_file.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <string_view>

#include <fcntl.h>
#include <unistd.h>

#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {
namespace {

constexpr std::string_view kTemporaryMark = ".tmp-";
constexpr std::size_t kRandomLetters = 6;
constexpr std::string_view kLetters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

std::string random_letters() {
    std::random_device device;  // the system's entropy, so another user cannot guess the next name
    std::uint64_t bits = (static_cast<std::uint64_t>(device()) << 32) ^ device();
    std::string letters;
    for (std::size_t i = 0; i < kRandomLetters; ++i) {
        letters += kLetters[bits % kLetters.size()];
        bits /= kLetters.size();
    }
    return letters;
}

bool is_letter_or_digit(char c) { return kLetters.find(c) != std::string_view::npos; }

}  // namespace

void write_file_atomically(const std::filesystem::path& path, const std::string& content, Durability durability) {
    std::filesystem::path temp;
    int fd = -1;
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        if (fd >= 0) ::close(fd);
        if (!temp.empty()) ::unlink(temp.c_str());
        throw Error(path.string() + ": cannot " + what + " (" + reason +
                    "); check that its folder exists and is writable and the disk not full");
    };
    // O_EXCL refuses any existing name, a planted link included (O_NOFOLLOW says so twice).
    for (int attempt = 0; fd < 0; ++attempt) {
        temp = path.string() + std::string(kTemporaryMark) + random_letters();
        fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd >= 0) break;
        if (errno == EINTR || (errno == EEXIST && attempt < 100)) continue;
        const std::filesystem::path failed = temp;
        temp.clear();  // not ours: never removed
        fail("create " + failed.filename().string());
    }
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) fail("write");
        written += static_cast<std::size_t>(n);
    }
    if (durability == Durability::Flushed && ::fsync(fd) != 0) fail("flush");
    const int closed = ::close(fd);
    fd = -1;
    if (closed != 0) fail("flush");
    if (std::rename(temp.c_str(), path.c_str()) != 0) fail("rename the temporary file into place");
}

bool is_atomic_write_temporary(const std::string& name) {
    // This version's "FILE.tmp-XXXXXX".
    const std::size_t mark = name.rfind(kTemporaryMark);
    if (mark != std::string::npos && mark > 0 && name.size() == mark + kTemporaryMark.size() + kRandomLetters &&
        std::all_of(name.begin() + static_cast<long>(mark + kTemporaryMark.size()), name.end(), is_letter_or_digit))
        return true;
    // Earlier versions' "FILE.tmp<pid>".
    const std::size_t tmp = name.rfind(".tmp");
    return tmp != std::string::npos && tmp > 0 && tmp + 4 < name.size() &&
           name.find_first_not_of("0123456789", tmp + 4) == std::string::npos;
}

int remove_abandoned_temporaries(const std::filesystem::path& dir) {
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        // A link is never one of ours (ours are created as plain files), so it is left alone.
        if (!is_atomic_write_temporary(entry.path().filename().string()) || !entry.is_regular_file() ||
            entry.is_symlink())
            continue;
        std::error_code ignored;
        if (std::filesystem::remove(entry.path(), ignored)) ++removed;
    }
    return removed;
}

std::string read_text_file(const std::filesystem::path& path, const std::string& what) {
    return read_input_file(path, kMaxRunFileBytes, what);
}

}  // namespace gi
