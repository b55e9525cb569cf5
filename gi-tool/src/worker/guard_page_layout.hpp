#pragma once
// Where a working buffer goes when the gate's guard zones use guard pages (CheckVariants::
// guard_pages): its end at the end of the mapped memory, an unmapped granule after it, so a
// read or write past the end faults at native speed instead of costing memcheck seconds.
#include <cstddef>

namespace gi::worker {

struct GuardPageLayout {
    std::size_t mapped = 0;    // bytes mapped from the start of the reservation (whole granules)
    std::size_t reserved = 0;  // bytes of address space reserved: mapped plus one unmapped granule
    std::size_t buffer = 0;    // the buffer's offset from the start of the reservation
};

// `bytes` of buffer (at least 1), `zone_before` bytes of guard zone before it (a multiple of
// `alignment`), on an allocation granularity of `granularity` bytes (a power of two, as the
// driver reports). The buffer starts at a multiple of `alignment` (a power of two at most the
// granularity), so its end lies up to alignment - 1 bytes before the unmapped granule: a buffer
// of 160 bytes at alignment 16 ends on it exactly, one of 161 leaves 15 bytes that only memcheck
// sees. Throws gi::Error on sizes that break these rules.
GuardPageLayout guard_page_layout(std::size_t bytes, std::size_t zone_before, std::size_t granularity,
                                  std::size_t alignment);

// The alignment a guard-paged buffer keeps: that of the widest vector a kernel loads (float4,
// double2: 16 bytes), not cuMemAlloc's 256, so that a buffer whose size is a multiple of 16 ends
// exactly on the unmapped page.
inline constexpr std::size_t kGuardPageAlignment = 16;

}  // namespace gi::worker
