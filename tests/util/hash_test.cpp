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

}  // namespace
}  // namespace gi
