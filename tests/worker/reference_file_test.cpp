// The hand-over of the original's outputs between workers: a file that is missing, damaged,
// foreign or inconsistent is always refused (the caller then recomputes), never used.
#include "worker/reference_file.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "../support/gpu_fixture.hpp"
#include "util/error.hpp"

namespace gi::worker {
namespace {
namespace fs = std::filesystem;

ReferenceOutputs sample() {
    ReferenceOutputs ref;
    ref.case_path = "/cases/scale-0001";
    ref.original_sha256 = std::string(64, 'a');
    ref.poisonable = "1,0,0";
    ref.outputs = {Bytes{1, 2, 3, 4, 5, 6, 7, 8}, Bytes{}, Bytes(1000, 9)};
    return ref;
}

const std::vector<std::uint64_t> kSizes{8, 0, 1000};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

void spit(const fs::path& p, const std::string& bytes) { std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes; }

std::string refusal(const fs::path& p, const std::string& sha, const std::string& case_path = sample().case_path,
                    const std::string& original = sample().original_sha256, const std::vector<std::uint64_t>& sizes = kSizes) {
    try {
        read_reference_file(p, sha, case_path, original, sizes);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(ReferenceFile, RoundTrip) {
    gpu_test::TempFolder dir;
    const fs::path file = dir.path() / "case-0.ref";
    const std::string sha = write_reference_file(file, sample());
    EXPECT_EQ(sha.size(), 64u);
    const ReferenceOutputs back = read_reference_file(file, sha, sample().case_path, sample().original_sha256, kSizes);
    EXPECT_EQ(back.outputs, sample().outputs);
    EXPECT_EQ(back.poisonable, "1,0,0");
    EXPECT_EQ(back.case_path, sample().case_path);
    // Nothing is left beside it (the temporary name was renamed).
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(ReferenceFile, WriteSetsRoundTripAndAreCoveredByTheChecksum) {
    gpu_test::TempFolder dir;
    const fs::path file = dir.path() / "case-0.ref";
    ReferenceOutputs ref = sample();
    ref.poisonable = "w2r0u0:0-8,0,w500r0u500:0-500";
    const std::string sha = write_reference_file(file, ref);
    EXPECT_EQ(read_reference_file(file, sha, ref.case_path, ref.original_sha256, kSizes).poisonable, ref.poisonable);
    // One poisoned range moved: a worker would poison other elements than the original writes.
    std::string bytes = slurp(file);
    const auto at = bytes.find("0-500");
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, 5, "0-400");
    spit(file, bytes);
    EXPECT_NE(refusal(file, sha).find("checksum"), std::string::npos);
}

TEST(ReferenceFile, MissingFileIsRefused) {
    gpu_test::TempFolder dir;
    EXPECT_NE(refusal(dir.path() / "none.ref", std::string(64, '0')).find("missing"), std::string::npos);
}

TEST(ReferenceFile, DamagedOutputBytesFailTheChecksum) {
    gpu_test::TempFolder dir;
    const fs::path file = dir.path() / "case-0.ref";
    const std::string sha = write_reference_file(file, sample());
    std::string bytes = slurp(file);
    bytes[bytes.size() - 500] ^= 0x01;  // one bit of the outputs
    spit(file, bytes);
    EXPECT_NE(refusal(file, sha).find("checksum"), std::string::npos);
}

TEST(ReferenceFile, EditedPoisonListFailsTheChecksum) {
    gpu_test::TempFolder dir;
    const fs::path file = dir.path() / "case-0.ref";
    const std::string sha = write_reference_file(file, sample());
    std::string bytes = slurp(file);
    const auto at = bytes.find("poisonable=1,0,0");
    ASSERT_NE(at, std::string::npos);
    bytes.replace(at, 16, "poisonable=1,1,0");  // same length, so the frame stays well formed
    spit(file, bytes);
    EXPECT_NE(refusal(file, sha).find("checksum"), std::string::npos);
}

TEST(ReferenceFile, TruncatedOrGarbageFilesAreRefused) {
    gpu_test::TempFolder dir;
    const fs::path file = dir.path() / "case-0.ref";
    const std::string sha = write_reference_file(file, sample());
    const std::string bytes = slurp(file);
    spit(file, bytes.substr(0, bytes.size() / 2));
    EXPECT_NE(refusal(file, sha).find("truncated"), std::string::npos);
    spit(file, "not a reference file at all, just some text that is long enough");
    EXPECT_NE(refusal(file, sha).find("malformed"), std::string::npos);
    spit(file, "");
    EXPECT_NE(refusal(file, sha).find("truncated"), std::string::npos);
    spit(file, bytes + "x");
    EXPECT_NE(refusal(file, sha).find("trailing"), std::string::npos);
}

TEST(ReferenceFile, AnotherChecksumCaseCodeOrShapeIsRefused) {
    gpu_test::TempFolder dir;
    const fs::path file = dir.path() / "case-0.ref";
    const std::string sha = write_reference_file(file, sample());
    // A file rewritten whole (self-consistent) is still not the one the parent was told about.
    ReferenceOutputs other = sample();
    other.outputs[0][0] = 42;
    write_reference_file(file, other);
    EXPECT_NE(refusal(file, sha).find("checksum"), std::string::npos);
    const std::string sha2 = write_reference_file(file, sample());
    EXPECT_EQ(sha2, sha);
    EXPECT_NE(refusal(file, sha, "/cases/other").find("belong to case"), std::string::npos);
    EXPECT_NE(refusal(file, sha, sample().case_path, std::string(64, 'b')).find("other code"), std::string::npos);
    EXPECT_NE(refusal(file, sha, sample().case_path, sample().original_sha256, {8, 0, 999}).find("sizes"), std::string::npos);
    EXPECT_NE(refusal(file, "").find("no checksum"), std::string::npos);
    EXPECT_EQ(refusal(file, sha), "");
}

TEST(ReferenceFile, UnwritableFolderIsAnError) {
    EXPECT_THROW(write_reference_file("/nonexistent-folder/x/case.ref", sample()), Error);
}

}  // namespace
}  // namespace gi::worker
