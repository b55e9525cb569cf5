#pragma once
// Content hashes for keys: compiled-variant caches, cache-entry keys, test-case checksums.
// SHA-256 (FIPS 180-4) so keys are stable across machines, compilers and releases.
#include <cstdint>
#include <string>
#include <string_view>

namespace gi {

// Incremental SHA-256; feed bytes with update(), read the lowercase hex digest with hex_digest().
// Through OpenSSL's libcrypto where gi-tool was built with it (GI_SHA256_OPENSSL: its SHA-NI code
// hashed 1.8 GB/s against this file's 284 MB/s on the dev machine, and every case load, reference
// hand-over and sanitizer session hashes hundreds of MB: issue 44); else the code here. Both give
// the same digests; the recorder, preloaded into users' programs, always uses the code here.
class Sha256 {
public:
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;
    void update(std::string_view bytes);
    void update(const void* data, std::size_t size);
    std::string hex_digest();  // finishes the hash; the object must not be updated afterwards

private:
    void compress(const unsigned char* block);
    std::uint32_t state_[8];
    unsigned char buffer_[64];
    std::size_t buffered_ = 0;
    std::uint64_t total_bytes_ = 0;
    void* evp_ = nullptr;  // libcrypto's EVP_MD_CTX, when built with it (the same layout either way)
};

// "openssl" or "built-in": which SHA-256 this build of gi-tool hashes with (for `gi-tool version`).
const char* sha256_implementation();

std::string sha256_hex(std::string_view bytes);

}  // namespace gi
