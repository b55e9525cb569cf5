#include "cuda/reference_folder.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <string>

namespace gi {
namespace fs = std::filesystem;

ReferenceFolder::ReferenceFolder(std::uint64_t bytes_needed) {
    std::error_code ec;
    const bool shm = fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0 &&
                     fs::space("/dev/shm", ec).available > 2 * bytes_needed && !ec;
    const fs::path base = shm ? fs::path("/dev/shm") : fs::temp_directory_path();
    std::string pattern = (base / "gi-reference-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) return;
    path_ = fs::absolute(pattern);
    on_signal_ = std::make_unique<RemovedOnFatalSignal>(path_);
}

ReferenceFolder::~ReferenceFolder() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace gi
