#pragma once
// A fingerprint of a recorded launch's inputs, so the recorder can tell a launch that repeats an
// earlier one (a benchmark's timing loop on the same data) from a new one and record only distinct
// launches (issue 41).
//
// It covers everything the kernel is given: its symbol and name, the geometry, the dynamic shared
// memory, every argument (a scalar by its bytes, a pointer by the buffer it points into and the
// offset, never by address) and every buffer's size, element type, variable name, read-only flag
// and `before` bytes. A device address stored inside bytes (an EmbeddedPointer) counts as its
// buffer and offset, so the same launch recorded by another process, whose allocations lie
// elsewhere, fingerprints the same. What the launch produced (`after`, `changed`, checksums) and
// where it ran (`device`, `path`) do not count.
//
// A 128-bit non-cryptographic hash: fast over buffers of hundreds of megabytes (the recorder
// fingerprints every launch it considers), and two distinct launches colliding is as unlikely as
// a hardware fault. Not for keys an adversary chooses (util/hash.hpp's SHA-256 is).
#include <compare>
#include <cstdint>
#include <string>

#include "testcase/test_case.hpp"

namespace gi {

struct CaseFingerprint {
    std::uint64_t high = 0, low = 0;
    friend bool operator==(const CaseFingerprint&, const CaseFingerprint&) = default;
    friend auto operator<=>(const CaseFingerprint&, const CaseFingerprint&) = default;
};

std::string to_string(const CaseFingerprint& f);  // 32 lowercase hex digits

// The fingerprint of `tc`'s inputs. Needs every buffer's `before` bytes (a case read with
// CaseLoad::ManifestOnly has none): throws gi::Error naming the case when one is missing or short.
CaseFingerprint case_fingerprint(const TestCase& tc);

}  // namespace gi
