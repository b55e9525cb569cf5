#pragma once
// One writer per output folder: a search writes its checkpoint, run record and database there for
// minutes or hours, and a second search writing into the same folder would leave a mixture of two
// runs that neither can resume. The lock is an flock() on DIR/.gi-lock, so the kernel releases it
// when its holder dies, however it dies; the file holds the holder's pid for the message.
#include <filesystem>
#include <string>

namespace gi {

class FolderLock {
public:
    // Creates `dir` if needed and locks it. Throws gi::Error when another process holds the lock,
    // naming it ("pid 1234: gi-tool evolve ..."), and when the lock file cannot be made.
    // `purpose` is written for the next comer to read ("gi-tool evolve --out run1").
    FolderLock(const std::filesystem::path& dir, const std::string& purpose);
    ~FolderLock();
    FolderLock(const FolderLock&) = delete;
    FolderLock& operator=(const FolderLock&) = delete;

    static constexpr const char* kFileName = ".gi-lock";

private:
    int fd_ = -1;
};

}  // namespace gi
