#include "testcase/case_fingerprint.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "util/error.hpp"

namespace gi {
namespace {

// A streaming 128-bit hash: four 64-bit lanes over 32-byte stripes with xxHash64's round (so the
// lanes run in parallel and a buffer hashes at memory speed), finished twice with different
// mixing for the two halves. Standard library only: the recorder library compiles this file too.
class Hash128 {
public:
    Hash128() : lanes_{kSeed + kP1 + kP2, kSeed + kP2, kSeed, kSeed - kP1} {}

    void update(const void* data, std::size_t size) {
        if (size == 0) return;
        const auto* p = static_cast<const unsigned char*>(data);
        total_ += size;
        if (buffered_ > 0) {
            const std::size_t take = std::min(size, sizeof stripe_ - buffered_);
            std::memcpy(stripe_ + buffered_, p, take);
            buffered_ += take;
            p += take;
            size -= take;
            if (buffered_ < sizeof stripe_) return;
            consume(stripe_);
            buffered_ = 0;
        }
        for (; size >= sizeof stripe_; p += sizeof stripe_, size -= sizeof stripe_) consume(p);
        std::memcpy(stripe_, p, size);
        buffered_ = size;
    }
    void word(std::uint64_t value) { update(&value, sizeof value); }
    void text(const std::string& s) {
        word(s.size());
        update(s.data(), s.size());
    }

    CaseFingerprint finish() {
        // The tail, zero-padded: the length folded in below keeps "ab" and "ab\0" apart.
        std::memset(stripe_ + buffered_, 0, sizeof stripe_ - buffered_);
        consume(stripe_);
        std::uint64_t low = rotl(lanes_[0], 1) + rotl(lanes_[1], 7) + rotl(lanes_[2], 12) + rotl(lanes_[3], 18);
        std::uint64_t high = rotl(lanes_[3], 3) + rotl(lanes_[2], 11) + rotl(lanes_[1], 23) + rotl(lanes_[0], 41);
        for (const std::uint64_t lane : lanes_) {
            low = (low ^ round(0, lane)) * kP1 + kP4;
            high = (high ^ round(kP5, lane)) * kP2 + kP3;
        }
        return {avalanche(high ^ total_ * kP3), avalanche(low + total_)};
    }

private:
    static constexpr std::uint64_t kP1 = 0x9E3779B185EBCA87ULL, kP2 = 0xC2B2AE3D27D4EB4FULL,
                                   kP3 = 0x165667B19E3779F9ULL, kP4 = 0x85EBCA77C2B2AE63ULL,
                                   kP5 = 0x27D4EB2F165667C5ULL, kSeed = 0x6769206361736573ULL;  // "gi cases"

    static std::uint64_t rotl(std::uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
    static std::uint64_t round(std::uint64_t acc, std::uint64_t input) { return rotl(acc + input * kP2, 31) * kP1; }
    static std::uint64_t avalanche(std::uint64_t h) {
        h ^= h >> 33;
        h *= kP2;
        h ^= h >> 29;
        h *= kP3;
        return h ^ (h >> 32);
    }
    void consume(const unsigned char* p) {
        for (int i = 0; i < 4; ++i) {
            std::uint64_t v = 0;
            std::memcpy(&v, p + 8 * i, sizeof v);
            lanes_[i] = round(lanes_[i], v);
        }
    }

    std::uint64_t lanes_[4];
    unsigned char stripe_[32] = {};
    std::size_t buffered_ = 0;
    std::uint64_t total_ = 0;
};

// `bytes` with each embedded pointer's 8 bytes counted as its buffer and offset: what the address
// means, not where the recording process's allocation happened to lie.
void hash_bytes(Hash128& h, const unsigned char* bytes, std::size_t size, std::vector<EmbeddedPointer> pointers) {
    std::sort(pointers.begin(), pointers.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
    h.word(size);
    h.word(pointers.size());
    std::size_t done = 0;
    for (const EmbeddedPointer& p : pointers) {
        // case_io refuses pointers outside their bytes or overlapping; counted as numbers here
        // rather than trusted, so a malformed one cannot read out of bounds.
        if (p.at < done || p.at > size || size - p.at < 8) {
            h.word(~std::uint64_t{0});
        } else {
            h.update(bytes + done, p.at - done);
            done = p.at + 8;
        }
        h.word(static_cast<std::uint64_t>(p.buffer));
        h.word(p.offset);
    }
    h.update(bytes + done, size - done);
}

}  // namespace

std::string to_string(const CaseFingerprint& f) {
    char text[33];
    std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(f.high),
                  static_cast<unsigned long long>(f.low));
    return text;
}

CaseFingerprint case_fingerprint(const TestCase& tc) {
    Hash128 h;
    h.text(tc.kernel);
    h.text(tc.symbol);
    for (const Dim3& d : {tc.grid, tc.block}) {
        h.word(d.x);
        h.word(d.y);
        h.word(d.z);
    }
    h.word(tc.shared_bytes);
    h.word(tc.args.size());
    for (const CaseArg& a : tc.args) {
        h.word(static_cast<std::uint64_t>(a.kind));
        h.word(a.size);
        h.word(static_cast<std::uint64_t>(a.element));
        h.word(a.is_const);
        switch (a.kind) {
            case CaseArg::Kind::Scalar: hash_bytes(h, a.value.data(), a.value.size(), a.pointers); break;
            case CaseArg::Kind::Pointer:
                h.word(static_cast<std::uint64_t>(a.buffer));
                h.word(a.offset);
                break;
            case CaseArg::Kind::Null: break;
        }
    }
    h.word(tc.buffers.size());
    for (std::size_t i = 0; i < tc.buffers.size(); ++i) {
        const CaseBuffer& b = tc.buffers[i];
        if (b.before.size() != b.size)
            throw Error((tc.path.empty() ? "case of '" + tc.kernel + "'" : tc.path) + ": buffer " + std::to_string(i) +
                        " holds " + std::to_string(b.before.size()) + " of its " + std::to_string(b.size) +
                        " input bytes, so the launch cannot be fingerprinted (read the case with its data)");
        h.word(static_cast<std::uint64_t>(b.element));
        h.word(b.read_only);
        h.text(b.variable);
        hash_bytes(h, b.before.data(), b.before.size(), b.pointers);
    }
    return h.finish();
}

}  // namespace gi
