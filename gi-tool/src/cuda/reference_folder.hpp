#pragma once
#include <cstdint>
#include <filesystem>
#include <memory>

#include "util/signal_cleanup.hpp"

namespace gi {

// Where workers hand the original's outputs to each other: RAM-backed /dev/shm when there is one
// with room for them (containers often give it 64 MB), else the temporary folder.
class ReferenceFolder {
public:
    explicit ReferenceFolder(std::uint64_t bytes_needed);
    ~ReferenceFolder();
    ReferenceFolder(const ReferenceFolder&) = delete;
    ReferenceFolder& operator=(const ReferenceFolder&) = delete;
    const std::filesystem::path& path() const { return path_; }  // "" when none could be made: no hand-over

private:
    std::filesystem::path path_;
    std::unique_ptr<RemovedOnFatalSignal> on_signal_;  // a killed run leaves no hundreds of MB in /dev/shm
};

}  // namespace gi
