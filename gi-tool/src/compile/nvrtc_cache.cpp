#include "compile/nvrtc_cache.hpp"

#include <fstream>
#include <random>

#include "util/hash.hpp"

namespace gi {
namespace fs = std::filesystem;

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
        std::ifstream in(folder_ / (key + ".cubin"), std::ios::binary);
        if (in) {
            DeviceCompileResult r;
            r.cubin.assign(std::istreambuf_iterator<char>(in), {});
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
    // Written under a temporary name and renamed, so a reader never sees half a cubin.
    std::random_device device;
    const fs::path temp = folder_ / (".tmp-" + key + "-" + std::to_string(device()));
    {
        std::ofstream out(temp, std::ios::binary);
        out.write(result.cubin.data(), static_cast<std::streamsize>(result.cubin.size()));
    }
    std::error_code ec;
    fs::rename(temp, folder_ / (key + ".cubin"), ec);
    if (ec) fs::remove(temp, ec);
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
