// Write sets' text (compare/write_set.hpp) as it reaches a worker from a run request or a
// reference file: anything malformed, too large or beyond the case is refused with the buffer and
// what is wrong named, never read as a poison that would wrongly fail a correct variant.
#include <gtest/gtest.h>

#include <chrono>

#include "compare/write_set.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

std::vector<CaseBuffer> hostile_write_set_buffers() {
    CaseBuffer out;
    out.size = 4096;
    out.element = ElementType::F32;
    out.read_only = false;
    CaseBuffer in = out;
    in.read_only = true;
    return {out, in};
}

std::string hostile_write_set_refusal(const std::string& text) {
    try {
        write_sets_from_text(text, hostile_write_set_buffers());
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(HostileWriteSets, CountsThatWrapAroundOrOverflowAreRefused) {
    // 2^64 - 1 + 1 wraps to 0 in a sum: each count is checked on its own first.
    EXPECT_NE(hostile_write_set_refusal("w18446744073709551615r1u0").find("more elements than the buffer's 1024"),
              std::string::npos);
    EXPECT_NE(hostile_write_set_refusal("w99999999999999999999999r0u0").find("out of range"), std::string::npos);
    EXPECT_NE(hostile_write_set_refusal("w1r0u0:0-99999999999999999999999").find("out of range"), std::string::npos);
}

TEST(HostileWriteSets, MalformedRangesAreRefused) {
    for (const char* text : {"w1r0u0:0-0", "w2r0u0:8-4", "w1r0u0:0-4+", "w1r0u0:+0-4", "w1r0u0:", "w1r0u0:-4-0",
                             " w1r0u0", "w1r0u0:0 -4", "w1r0u0:0-4:0-4", "w1r0u0\n", "w1r0u0:0-4,0,0"}) {
        SCOPED_TRACE(text);
        const std::string refusal = hostile_write_set_refusal(text);
        EXPECT_FALSE(refusal.empty());
        EXPECT_EQ(refusal.find('\n'), std::string::npos) << "control characters are quoted, not printed: " << refusal;
    }
}

TEST(HostileWriteSets, MoreRangesThanAWorkerEverWritesAreRefusedQuickly) {
    CaseBuffer big;
    big.size = 4 * 1000000;
    big.element = ElementType::F32;
    big.read_only = false;
    std::string text = "w500000r0u500000";
    for (int i = 0; i < 500000; ++i) text += (i ? "+" : ":") + std::to_string(8 * i) + "-" + std::to_string(8 * i + 4);
    const auto start = std::chrono::steady_clock::now();
    try {
        write_sets_from_text(text, {big});
        FAIL() << "500000 ranges were read";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("more than 1024 ranges"), std::string::npos) << e.what();
        EXPECT_LT(std::string(e.what()).size(), 400u) << "the text is quoted in part only";
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
}

}  // namespace
}  // namespace gi
