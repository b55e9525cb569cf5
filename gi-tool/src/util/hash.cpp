#include "util/hash.hpp"

#include <cstring>
#include <stdexcept>

#if defined(GI_SHA256_OPENSSL)
#include <openssl/evp.h>
#endif

namespace gi {
namespace {

constexpr std::uint32_t kRoundConstants[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

constexpr std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

}  // namespace

Sha256::Sha256()
    : state_{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19} {
#if defined(GI_SHA256_OPENSSL)
    // A context libcrypto cannot make (out of memory, a FIPS provider without SHA-256) leaves the
    // code below to hash: the digest is the same.
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    if (ctx != nullptr && EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr) == 1) evp_ = ctx;
    else EVP_MD_CTX_free(ctx);
#endif
}

Sha256::~Sha256() {
#if defined(GI_SHA256_OPENSSL)
    EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(evp_));
#endif
}

const char* sha256_implementation() {
#if defined(GI_SHA256_OPENSSL)
    return "openssl";
#else
    return "built-in";
#endif
}

void Sha256::compress(const unsigned char* block) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
        w[i] = (std::uint32_t(block[4 * i]) << 24) | (std::uint32_t(block[4 * i + 1]) << 16) |
               (std::uint32_t(block[4 * i + 2]) << 8) | std::uint32_t(block[4 * i + 3]);
    for (int i = 16; i < 64; ++i) {
        const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = state_[0], b = state_[1], c = state_[2], d = state_[3];
    std::uint32_t e = state_[4], f = state_[5], g = state_[6], h = state_[7];
    for (int i = 0; i < 64; ++i) {
        const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        const std::uint32_t choice = (e & f) ^ (~e & g);
        const std::uint32_t t1 = h + s1 + choice + kRoundConstants[i] + w[i];
        const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        const std::uint32_t majority = (a & b) ^ (a & c) ^ (b & c);
        const std::uint32_t t2 = s0 + majority;
        h = g; g = f; f = e; e = d + t1; d = c; c = b; b = a; a = t1 + t2;
    }
    state_[0] += a; state_[1] += b; state_[2] += c; state_[3] += d;
    state_[4] += e; state_[5] += f; state_[6] += g; state_[7] += h;
}

void Sha256::update(const void* data, std::size_t size) {
#if defined(GI_SHA256_OPENSSL)
    if (evp_ != nullptr) {
        if (EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(evp_), data, size) != 1)
            throw std::runtime_error("SHA-256: OpenSSL's EVP_DigestUpdate failed");
        return;
    }
#endif
    const auto* bytes = static_cast<const unsigned char*>(data);
    total_bytes_ += size;
    while (size > 0) {
        const std::size_t take = std::min<std::size_t>(size, 64 - buffered_);
        std::memcpy(buffer_ + buffered_, bytes, take);
        buffered_ += take;
        bytes += take;
        size -= take;
        if (buffered_ == 64) {
            compress(buffer_);
            buffered_ = 0;
        }
    }
}

void Sha256::update(std::string_view bytes) { update(bytes.data(), bytes.size()); }

std::string Sha256::hex_digest() {
    static const char* digits = "0123456789abcdef";
#if defined(GI_SHA256_OPENSSL)
    if (evp_ != nullptr) {
        unsigned char digest[32];
        unsigned int length = 0;
        if (EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(evp_), digest, &length) != 1 || length != sizeof digest)
            throw std::runtime_error("SHA-256: OpenSSL's EVP_DigestFinal_ex failed");
        std::string hex;
        for (unsigned char byte : digest) {
            hex += digits[byte >> 4];
            hex += digits[byte & 0xf];
        }
        return hex;
    }
#endif
    const std::uint64_t bit_length = total_bytes_ * 8;
    const unsigned char pad = 0x80;
    update(&pad, 1);
    const unsigned char zero = 0;
    while (buffered_ != 56) update(&zero, 1);
    unsigned char length_bytes[8];
    for (int i = 0; i < 8; ++i) length_bytes[i] = static_cast<unsigned char>(bit_length >> (56 - 8 * i));
    update(length_bytes, 8);
    std::string hex;
    for (std::uint32_t word : state_)
        for (int shift = 28; shift >= 0; shift -= 4) hex += digits[(word >> shift) & 0xf];
    return hex;
}

std::string sha256_hex(std::string_view bytes) {
    Sha256 hash;
    hash.update(bytes);
    return hash.hex_digest();
}

}  // namespace gi
