#include "util/file_read.hpp"

#include <cerrno>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/error.hpp"

namespace gi {
namespace {

[[noreturn]] void refuse(const std::filesystem::path& path, mode_t mode, const std::string& what) {
    if (S_ISDIR(mode)) throw Error(path.string() + ": is a folder, not a " + what + " (pass the file itself)");
    throw Error(path.string() + ": is not a regular file (a device or a pipe?), so it is not read as a " + what);
}

// An open regular file of at most `max_bytes`, closed when it goes.
class GuardedInput {
public:
    GuardedInput(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& what)
        : path_(path), what_(what) {
        // A look at the name first, so a device is never even opened (opening some has effects).
        struct stat named {};
        if (::stat(path.c_str(), &named) != 0)
            throw Error(path.string() + ": cannot read the " + what + " (" + std::strerror(errno) +
                        "; check that it exists and is readable)");
        if (!S_ISREG(named.st_mode)) refuse(path, named.st_mode, what);
        // O_NONBLOCK: should a FIFO take the file's place meanwhile, opening it does not wait for a writer.
        do {
            fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        } while (fd_ < 0 && errno == EINTR);
        if (fd_ < 0)
            throw Error(path.string() + ": cannot read the " + what + " (" + std::strerror(errno) +
                        "; check that it is readable)");
        struct stat opened {};
        if (::fstat(fd_, &opened) != 0) fail("cannot read the " + what);
        if (!S_ISREG(opened.st_mode)) {
            ::close(fd_);
            fd_ = -1;
            refuse(path, opened.st_mode, what);
        }
        size_ = static_cast<std::uintmax_t>(opened.st_size);
        if (size_ > max_bytes) {
            ::close(fd_);
            fd_ = -1;
            throw Error(path.string() + ": the " + what + " has " + std::to_string(size_) + " bytes, more than the " +
                        std::to_string(max_bytes) + " gi-tool reads for one");
        }
    }
    ~GuardedInput() {
        if (fd_ >= 0) ::close(fd_);
    }
    GuardedInput(const GuardedInput&) = delete;
    GuardedInput& operator=(const GuardedInput&) = delete;

    std::uintmax_t size() const { return size_; }

    // Up to `capacity` bytes at the current position; 0 at the end of the file.
    std::size_t read_some(char* into, std::size_t capacity) {
        for (;;) {
            const ssize_t n = ::read(fd_, into, capacity);
            if (n >= 0) return static_cast<std::size_t>(n);
            if (errno != EINTR) fail("reading the " + what_ + " failed");
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(path_.string() + ": " + what + " (" + std::strerror(errno) + ")");
    }

    std::filesystem::path path_;
    std::string what_;
    int fd_ = -1;
    std::uintmax_t size_ = 0;
};

}  // namespace

std::string read_input_file(const std::filesystem::path& path, std::uintmax_t max_bytes, const std::string& what) {
    GuardedInput input(path, max_bytes, what);
    // The size seen when it was opened: a file that grows meanwhile is read no further.
    std::string text(static_cast<std::size_t>(input.size()), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const std::size_t n = input.read_some(text.data() + done, text.size() - done);
        if (n == 0) break;
        done += n;
    }
    text.resize(done);
    return text;
}

std::uintmax_t read_input_file_in_pieces(const std::filesystem::path& path, std::uintmax_t max_bytes,
                                         const std::string& what,
                                         const std::function<void(const char* data, std::size_t size)>& consume) {
    GuardedInput input(path, max_bytes, what);
    std::vector<char> piece(std::size_t{4} << 20);
    std::uintmax_t done = 0;
    while (done < input.size()) {
        const std::uintmax_t left = input.size() - done;
        const std::size_t n = input.read_some(piece.data(), left < piece.size() ? static_cast<std::size_t>(left) : piece.size());
        if (n == 0) break;
        consume(piece.data(), n);
        done += n;
    }
    return done;
}

}  // namespace gi
