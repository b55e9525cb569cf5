#pragma once
// Compiled-code cache of the cuda evaluator: identical variants (same source, options,
// architecture and compiler) are never compiled twice. In memory, and optionally in a folder so
// a resumed or repeated run starts warm. Failed compiles are cached too (their log). Thread-safe.
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "compile/nvrtc_compiler.hpp"

namespace gi {

// sha256 over length-prefixed (source, each option, arch, compiler).
std::string compiled_code_key(const std::string& source, const std::vector<std::string>& options,
                              const std::string& arch, const std::string& compiler);

class CompiledCodeCache {
public:
    explicit CompiledCodeCache(std::filesystem::path folder = {});  // "" = memory only

    std::optional<DeviceCompileResult> get(const std::string& key);
    void put(const std::string& key, const DeviceCompileResult& result);
    std::size_t hits() const;
    std::size_t misses() const;

private:
    std::filesystem::path folder_;
    mutable std::mutex mutex_;
    std::map<std::string, DeviceCompileResult> entries_;
    std::size_t hits_ = 0, misses_ = 0;
};

}  // namespace gi
