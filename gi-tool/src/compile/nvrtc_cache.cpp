#include "compile/nvrtc_cache.hpp"

#include <cstdint>

#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/hash.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {
// Far above any kernel's cubin (a few MB): anything larger in the folder is not one of ours.
constexpr std::uintmax_t kMaxCubinBytes = std::uintmax_t{1} << 30;
}  // namespace

std::string compiled_code_key(const std::string& source, const std::vector<std::string>& options,
                              const std::string& arch, const std::string& compiler) {
    Sha256 hash;
    auto add = [&hash](const std::string& part) {
        hash.update(std::to_string(part.size()) + ":");
        hash.update(part);
    };
    add(source);
    add(std::to_string(options.size()));
    for (const auto& o : options) add(o);
    add(arch);
    add(compiler);
    return hash.hex_digest();
}

CompiledCodeCache::CompiledCodeCache(fs::path folder) : folder_(std::move(folder)) {
    if (!folder_.empty()) fs::create_directories(folder_);
}

std::optional<DeviceCompileResult> CompiledCodeCache::get(const std::string& key) {
    {
        std::lock_guard lock(mutex_);
        if (auto it = entries_.find(key); it != entries_.end()) {
            ++hits_;
            DeviceCompileResult r = it->second;
            r.cached = true;
            r.ms = 0;
            return r;
        }
    }
    if (!folder_.empty()) {
        // Only successful compiles are kept on disk (a cubin per key); their log is not needed.
        // The folder is the user's, so what lies there is read as any input is: a plain file of a
        // cubin's size, else a miss.
        const fs::path file = folder_ / (key + ".cubin");
        std::error_code ec;
        if (fs::exists(file, ec)) {
            DeviceCompileResult r;
            try {
                r.cubin = read_input_file(file, kMaxCubinBytes, "compiled variant");
            } catch (const Error&) {
                r.cubin.clear();
            }
            if (!r.cubin.empty()) {
                r.ok = true;
                r.compiler = "disk-cache";
                std::lock_guard lock(mutex_);
                entries_[key] = r;
                ++hits_;
                r.cached = true;
                return r;
            }
        }
    }
    std::lock_guard lock(mutex_);
    ++misses_;
    return std::nullopt;
}

void CompiledCodeCache::put(const std::string& key, const DeviceCompileResult& result) {
    {
        std::lock_guard lock(mutex_);
        entries_[key] = result;
    }
    if (folder_.empty() || !result.ok) return;
    // Written as every output is (a reader never sees half a cubin); a failed write only costs a
    // later run one compile.
    try {
        write_file_atomically(folder_ / (key + ".cubin"), result.cubin);
    } catch (const Error&) {
    }
}

std::size_t CompiledCodeCache::hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
}

std::size_t CompiledCodeCache::misses() const {
    std::lock_guard lock(mutex_);
    return misses_;
}

}  // namespace gi
