#pragma once
// Content hashes for keys: compiled-variant caches, cache-entry keys, test-case checksums.
// SHA-256 (FIPS 180-4) so keys are stable across machines, compilers and releases.
#include <cstdint>
#include <string>
#include <string_view>

namespace gi {

// Incremental SHA-256; feed bytes with update(), read the lowercase hex digest with hex_digest().
class Sha256 {
public:
    Sha256();
    void update(std::string_view bytes);
    void update(const void* data, std::size_t size);
    std::string hex_digest();  // finishes the hash; the object must not be updated afterwards

private:
    void compress(const unsigned char* block);
    std::uint32_t state_[8];
    unsigned char buffer_[64];
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
};

std::string sha256_hex(std::string_view bytes);

}  // namespace gi
