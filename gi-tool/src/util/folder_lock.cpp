#include "util/folder_lock.hpp"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.hpp"

namespace gi {

namespace {

std::string holder_of(int fd) {
    char buffer[512];
    const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
    if (n <= 0) return "another process";
    std::string text(buffer, static_cast<std::size_t>(n));
    while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
    return text.empty() ? "another process" : text;
}

}  // namespace

FolderLock::FolderLock(const std::filesystem::path& dir, const std::string& purpose) {
    std::error_code ec;
    if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec))
        throw Error(dir.string() + ": is a file, not a folder (give a folder for the run's outputs)");
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error(dir.string() + ": cannot create the folder (" + ec.message() + ")");
    const std::filesystem::path file = dir / kFileName;
    // O_NOFOLLOW: a link planted as the lock file would have the lock's note written over
    // whatever it points to.
    fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno == ELOOP)
        throw Error(file.string() + ": is a symbolic link, not gi-tool's lock file; it was left untouched "
                    "(remove the link, or choose another folder)");
    if (fd_ < 0)
        throw Error(file.string() + ": cannot create the lock file (" + std::strerror(errno) +
                    "); is the folder writable?");
    struct stat status {};
    if (::fstat(fd_, &status) != 0 || !S_ISREG(status.st_mode) || status.st_nlink != 1) {
        // A FIFO or device, or a second name of another file (a hard link): not ours to rewrite.
        ::close(fd_);
        fd_ = -1;
        throw Error(file.string() + ": is not a plain file of its own (a device, a pipe or a hard link to another "
                    "file?), so it is not gi-tool's lock file; it was left untouched (remove it, or choose another folder)");
    }
    int locked;
    do {
        locked = ::flock(fd_, LOCK_EX | LOCK_NB);
    } while (locked != 0 && errno == EINTR);
    if (locked != 0) {
        const int error = errno;
        const std::string holder = holder_of(fd_);
        ::close(fd_);
        fd_ = -1;
        if (error == EWOULDBLOCK)
            throw Error(dir.string() + " is in use by a running search (pid " + holder +
                        "); wait for it to finish or stop it, or choose another folder");
        throw Error(file.string() + ": cannot lock the folder (" + std::strerror(error) + ")");
    }
    const std::string content = std::to_string(::getpid()) + ": " + purpose + "\n";
    // Only the next comer's message depends on this note, so a failed write is not an error.
    if (::ftruncate(fd_, 0) == 0) (void)!::pwrite(fd_, content.data(), content.size(), 0);
}

FolderLock::~FolderLock() {
    if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace gi
