#include "util/hash.hpp"

#include <gtest/gtest.h>

namespace gi {
namespace {

// Known answers from FIPS 180-4's examples.
TEST(Sha256, KnownAnswers) {
    EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

TEST(Sha256, IncrementalEqualsOneShot) {
    std::string text(1000, 'x');
    for (std::size_t i = 0; i < text.size(); ++i) text[i] = static_cast<char>('a' + i % 26);
    Sha256 hash;
    for (std::size_t i = 0; i < text.size(); i += 37) hash.update(std::string_view(text).substr(i, 37));
    EXPECT_EQ(hash.hex_digest(), sha256_hex(text));
}

// A million 'a's (FIPS 180-4's long example), fed in pieces that straddle the 64-byte blocks: the
// hashing of case blobs, through OpenSSL or the built-in code, whichever this build has.
TEST(Sha256, MillionAsInUnevenPieces) {
    const std::string million(1000000, 'a');
    Sha256 hash;
    for (std::size_t i = 0; i < million.size(); i += 4093) hash.update(std::string_view(million).substr(i, 4093));
    EXPECT_EQ(hash.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") << sha256_implementation();
    EXPECT_EQ(sha256_hex(million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

}  // namespace
}  // namespace gi
