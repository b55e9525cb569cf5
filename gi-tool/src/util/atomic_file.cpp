#include "util/atomic_file.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include "util/error.hpp"
#include "util/file_read.hpp"

namespace gi {

void write_file_atomically(const std::filesystem::path& path, const std::string& content) {
    const std::filesystem::path temp = path.string() + ".tmp" + std::to_string(::getpid());
    auto fail = [&](const std::string& what) {
        const std::string reason = std::strerror(errno);
        std::error_code ignored;
        std::filesystem::remove(temp, ignored);
        throw Error(path.string() + ": cannot " + what + " (" + reason + "); check that its folder is writable and the disk not full");
    };
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) fail("create " + temp.filename().string());
    std::size_t written = 0;
    while (written < content.size()) {
        const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            ::close(fd);
            fail("write");
        }
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) fail("flush");
    if (std::rename(temp.c_str(), path.c_str()) != 0) fail("rename the temporary file into place");
}

int remove_abandoned_temporaries(const std::filesystem::path& dir) {
    int removed = 0;
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        const std::size_t tmp = name.rfind(".tmp");
        if (tmp == std::string::npos || tmp == 0 || tmp + 4 == name.size() || !entry.is_regular_file()) continue;
        if (name.find_first_not_of("0123456789", tmp + 4) != std::string::npos) continue;
        std::error_code ignored;
        if (std::filesystem::remove(entry.path(), ignored)) ++removed;
    }
    return removed;
}

std::string read_text_file(const std::filesystem::path& path, const std::string& what) {
    return read_input_file(path, kMaxRunFileBytes, what);
}

}  // namespace gi
