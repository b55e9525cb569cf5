// The fingerprint the recorder tells repeated launches apart by (issue 41): the inputs count, the
// outputs and the recording process's addresses do not.
#include "testcase/case_fingerprint.hpp"

#include <gtest/gtest.h>

#include <cstring>

#include "../support/gpu_fixture.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

void put_address(Bytes& bytes, std::size_t at, std::uint64_t address) { std::memcpy(bytes.data() + at, &address, 8); }

// A launch as a recording process at `base` would see it: `in` (read-only, 64 floats), `out`
// (written), a table of two device pointers (into `in` at byte 16 and into `out`) and a struct
// argument holding a pointer to `in`. Allocations lie at `base`, `base + 0x10000` and `base + 0x20000`.
TestCase fingerprint_sample(std::uint64_t base) {
    TestCase tc;
    tc.kernel = "scale";
    tc.symbol = "_Z5scalePfPKfi";
    tc.grid = {4, 1, 1};
    tc.block = {16, 1, 1};
    tc.shared_bytes = 0;
    CaseBuffer in;
    in.size = 256;
    in.element = ElementType::F32;
    in.before.resize(256);
    for (std::size_t i = 0; i < in.before.size(); ++i) in.before[i] = static_cast<unsigned char>(i * 7);
    in.after = in.before;
    CaseBuffer out;
    out.size = 256;
    out.element = ElementType::F32;
    out.read_only = false;
    out.before = Bytes(256, 0);
    out.after = Bytes(256, 1);
    out.changed = true;
    CaseBuffer table;
    table.size = 16;
    table.before = Bytes(16, 0);
    put_address(table.before, 0, base + 16);
    put_address(table.before, 8, base + 0x10000);
    table.pointers = {{0, 0, 16}, {8, 1, 0}};
    table.after = table.before;
    tc.buffers = {in, out, table};
    CaseArg a0{CaseArg::Kind::Pointer, 8, ElementType::F32, {}, 1, 0, false};
    CaseArg a1{CaseArg::Kind::Pointer, 8, ElementType::F32, {}, 0, 0, true};
    CaseArg a2{CaseArg::Kind::Scalar, 4, ElementType::I32, {64, 0, 0, 0}, -1, 0, false};
    CaseArg a3{CaseArg::Kind::Pointer, 8, ElementType::Bytes, {}, 2, 0, true};
    CaseArg a4{CaseArg::Kind::Scalar, 16, ElementType::Bytes, Bytes(16, 0), -1, 0, false};
    put_address(a4.value, 0, base + 32);
    a4.pointers = {{0, 0, 32}};
    tc.args = {a0, a1, a2, a3, a4};
    return tc;
}

constexpr std::uint64_t kFingerprintBase = 0x7f0000000000ULL;

TEST(CaseFingerprint, SameInputsSameFingerprintWhateverTheOutputs) {
    const TestCase a = fingerprint_sample(kFingerprintBase);
    TestCase b = fingerprint_sample(kFingerprintBase);
    EXPECT_EQ(case_fingerprint(a), case_fingerprint(b));
    b.buffers[1].after = Bytes(256, 9);
    b.buffers[1].changed = false;
    b.buffers[0].after_sha256 = "something else";
    b.device = "Another GPU";
    b.compute_capability = 80;
    b.path = "/elsewhere/scale-0007";
    EXPECT_EQ(case_fingerprint(a), case_fingerprint(b));
    EXPECT_EQ(to_string(case_fingerprint(a)).size(), 32u);
}

TEST(CaseFingerprint, SameLaunchAtOtherAddressesFingerprintsTheSame) {
    // Another process: the allocations (and so the embedded addresses) lie elsewhere.
    EXPECT_EQ(case_fingerprint(fingerprint_sample(kFingerprintBase)),
              case_fingerprint(fingerprint_sample(kFingerprintBase + 0x123450000ULL)));
}

TEST(CaseFingerprint, EveryInputCounts) {
    const CaseFingerprint original = case_fingerprint(fingerprint_sample(kFingerprintBase));
    const std::vector<std::pair<std::string, std::function<void(TestCase&)>>> changes = {
        {"a scalar", [](TestCase& tc) { tc.args[2].value[0] = 65; }},
        {"the grid", [](TestCase& tc) { tc.grid.y = 2; }},
        {"the block", [](TestCase& tc) { tc.block.x = 32; }},
        {"the shared bytes", [](TestCase& tc) { tc.shared_bytes = 1024; }},
        {"the symbol", [](TestCase& tc) { tc.symbol = "_Z5scalePdPKdi"; }},
        {"the kernel name", [](TestCase& tc) { tc.kernel = "scale2"; }},
        {"one input byte", [](TestCase& tc) { tc.buffers[0].before[200] ^= 1; }},
        {"one byte of a written buffer", [](TestCase& tc) { tc.buffers[1].before[255] = 1; }},
        {"a buffer's size", [](TestCase& tc) {
             tc.buffers[1].size = 260;
             tc.buffers[1].before.resize(260);
         }},
        {"a buffer's element type", [](TestCase& tc) { tc.buffers[0].element = ElementType::I32; }},
        {"a buffer's read-only flag", [](TestCase& tc) { tc.buffers[0].read_only = false; }},
        {"a buffer's variable name", [](TestCase& tc) { tc.buffers[2].variable = "table"; }},
        {"a pointer argument's offset", [](TestCase& tc) { tc.args[1].offset = 4; }},
        {"a pointer argument's buffer", [](TestCase& tc) { tc.args[0].buffer = 0; }},
        {"a null argument", [](TestCase& tc) {
             tc.args[1].kind = CaseArg::Kind::Null;
             tc.args[1].buffer = -1;
         }},
        {"an embedded pointer's offset", [](TestCase& tc) {
             tc.buffers[2].pointers[0].offset = 20;
             put_address(tc.buffers[2].before, 0, kFingerprintBase + 20);
         }},
        {"an embedded pointer's target", [](TestCase& tc) {
             tc.buffers[2].pointers[1].buffer = 0;
             put_address(tc.buffers[2].before, 8, kFingerprintBase);
         }},
        {"a struct argument's pointer offset", [](TestCase& tc) {
             tc.args[4].pointers[0].offset = 36;
             put_address(tc.args[4].value, 0, kFingerprintBase + 36);
         }},
        {"a struct argument's other bytes", [](TestCase& tc) { tc.args[4].value[12] = 3; }},
        {"an argument's element type", [](TestCase& tc) { tc.args[2].element = ElementType::U32; }},
    };
    for (const auto& [what, change] : changes) {
        TestCase tc = fingerprint_sample(kFingerprintBase);
        change(tc);
        EXPECT_NE(case_fingerprint(tc), original) << what;
    }
}

TEST(CaseFingerprint, AMovedBoundaryBetweenBuffersCounts) {
    // The same bytes split differently between two buffers is another launch.
    TestCase a = fingerprint_sample(kFingerprintBase);
    TestCase b = a;
    a.buffers[0].before.push_back(5);
    a.buffers[0].size += 1;
    b.buffers[1].before.insert(b.buffers[1].before.begin(), 5);
    b.buffers[1].size += 1;
    EXPECT_NE(case_fingerprint(a), case_fingerprint(b));
}

TEST(CaseFingerprint, SurvivesTheRoundTripThroughAFolder) {
    // The recorder compares a launch with the cases an earlier run wrote: read back, they must
    // fingerprint as they did in memory.
    gpu_test::TempFolder dir;
    const TestCase tc = fingerprint_sample(kFingerprintBase);
    const auto folder = write_test_case(tc, dir.path());
    EXPECT_EQ(case_fingerprint(read_test_case(folder, CaseLoad::DataTrusted)), case_fingerprint(tc));
}

TEST(CaseFingerprint, RefusesACaseReadWithoutItsBytes) {
    gpu_test::TempFolder dir;
    const auto folder = write_test_case(fingerprint_sample(kFingerprintBase), dir.path());
    try {
        case_fingerprint(read_test_case(folder, CaseLoad::ManifestOnly));
        FAIL() << "fingerprinted a case without its bytes";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("buffer 0 holds 0 of its 256 input bytes"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find(folder.string()), std::string::npos) << e.what();
    }
}

TEST(CaseFingerprint, LongBuffersHashEveryByte) {
    // Bytes past the first stripes, and in a tail shorter than a stripe, count too.
    TestCase a = fingerprint_sample(kFingerprintBase);
    a.buffers[0].size = 1000003;
    a.buffers[0].before.assign(a.buffers[0].size, 0x5a);
    const CaseFingerprint before = case_fingerprint(a);
    for (const std::size_t at : {std::size_t{0}, std::size_t{500000}, std::size_t{1000000}, std::size_t{1000002}}) {
        TestCase b = a;
        b.buffers[0].before[at] = 0x5b;
        EXPECT_NE(case_fingerprint(b), before) << "byte " << at;
    }
}

}  // namespace
}  // namespace gi
