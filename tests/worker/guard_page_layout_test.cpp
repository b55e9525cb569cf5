// Where a guard-paged working buffer goes (worker/guard_page_layout.hpp): its end on the unmapped
// granule wherever its size allows, its start aligned, its zone before it mapped.
#include "worker/guard_page_layout.hpp"

#include <gtest/gtest.h>

#include "util/error.hpp"

namespace gi::worker {
namespace {

constexpr std::size_t kTwoMiB = 2u << 20;

TEST(GuardPageLayout, ABufferOfWholeAlignmentUnitsEndsOnTheUnmappedGranule) {
    // wavefront's 160-byte buffer, the one memcheck found read 1 byte past its end.
    const GuardPageLayout l = guard_page_layout(160, 256 * 1024, kTwoMiB, kGuardPageAlignment);
    EXPECT_EQ(l.mapped, kTwoMiB);
    EXPECT_EQ(l.reserved, 2 * kTwoMiB);
    EXPECT_EQ(l.buffer + 160, l.mapped);  // the first byte past the end is unmapped
    EXPECT_GE(l.buffer, 256u * 1024);     // the zone before it is mapped
    EXPECT_EQ(l.buffer % kGuardPageAlignment, 0u);
}

TEST(GuardPageLayout, AnUnalignedSizeKeepsItsStartAlignedAndLeavesLessThanOneUnit) {
    const GuardPageLayout l = guard_page_layout(161, 0, kTwoMiB, kGuardPageAlignment);
    EXPECT_EQ(l.buffer % kGuardPageAlignment, 0u);
    EXPECT_EQ(l.mapped - (l.buffer + 161), 15u);
}

TEST(GuardPageLayout, ALargeBufferTakesAsManyGranulesAsItAndItsZoneNeed) {
    const std::size_t bytes = 3 * kTwoMiB + 48;
    const GuardPageLayout l = guard_page_layout(bytes, 256 * 1024, kTwoMiB, kGuardPageAlignment);
    EXPECT_EQ(l.mapped, 4 * kTwoMiB);
    EXPECT_EQ(l.buffer + bytes, l.mapped);
    EXPECT_GE(l.buffer, 256u * 1024);
    // The zone no longer fits in the last granule's slack: one granule more.
    const GuardPageLayout fuller = guard_page_layout(4 * kTwoMiB - 16, 256 * 1024, kTwoMiB, kGuardPageAlignment);
    EXPECT_EQ(fuller.mapped, 5 * kTwoMiB);
    EXPECT_EQ(fuller.buffer + 4 * kTwoMiB - 16, fuller.mapped);
}

TEST(GuardPageLayout, AnEmptyBufferIsOneByte) {
    const GuardPageLayout l = guard_page_layout(0, 0, kTwoMiB, kGuardPageAlignment);
    EXPECT_EQ(l.mapped - l.buffer, kGuardPageAlignment);
}

TEST(GuardPageLayout, SizesThatBreakTheRulesAreRefused) {
    EXPECT_THROW(guard_page_layout(160, 0, 3u << 20, 16), Error);        // granularity not a power of two
    EXPECT_THROW(guard_page_layout(160, 0, kTwoMiB, 24), Error);         // alignment not a power of two
    EXPECT_THROW(guard_page_layout(160, 0, 4096, 8192), Error);          // alignment beyond the granularity
    EXPECT_THROW(guard_page_layout(160, 100, kTwoMiB, 16), Error);       // a zone that would misalign the buffer
}

}  // namespace
}  // namespace gi::worker
