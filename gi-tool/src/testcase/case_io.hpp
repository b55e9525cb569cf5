#pragma once
// The on-disk test-case format: one folder per recorded launch holding manifest.xml (tinyxml2) and
// one .bin blob per buffer state, every blob with its size and sha256 in the manifest.
//
//   <record-dir>/<kernel>-0003/manifest.xml
//                              buffer0.before.bin  buffer0.after.bin (only when changed) ...
//
// Writing is atomic: blobs and manifest go into a hidden temporary folder that is renamed into
// place, so a reader never sees half a case and a failed recording leaves nothing behind.
// Reading checks everything (format, sizes, checksums, references between args and buffers) and
// throws gi::Error naming the file (and manifest line) with a hint.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "testcase/test_case.hpp"

namespace gi {

// 2 added module variables and embedded pointers; format 1 cases (which have neither) still read.
inline constexpr int kTestCaseFormat = 2;
inline constexpr int kOldestTestCaseFormat = 1;
inline constexpr const char* kManifestName = "manifest.xml";
// A manifest lists a launch's arguments and buffers: kilobytes, megabytes with many embedded
// pointers. A larger file is not a manifest and is refused before it is read.
inline constexpr std::uintmax_t kMaxManifestBytes = std::uintmax_t{256} << 20;

// Writes `tc` (buffers' before/after bytes filled; checksums are computed here) as a new folder
// `<kernel>-NNNN` (the name's file_name_part) in `record_dir` (created if missing), NNNN the first free number. Returns the
// folder. Throws gi::Error naming the path on any failure, after removing the temporary folder.
std::filesystem::path write_test_case(const TestCase& tc, const std::filesystem::path& record_dir);

// Moves the case folder `folder` (written by write_test_case into another folder on the same file
// system: a recording private to one run) into `record_dir` under the first free number of its
// kernel, as write_test_case names it. Returns the new folder; throws gi::Error naming the paths.
std::filesystem::path move_test_case(const std::filesystem::path& folder, const std::filesystem::path& record_dir);

enum class CaseLoad {
    ManifestOnly,  // geometry, args and buffer sizes; no blob is read (listing, geometry checks)
    Data,          // also every blob, each checked against its size and sha256
    DataTrusted,   // every blob, sizes checked but checksums not recomputed: for a folder already
                   // verified by this run (a restarted GPU worker reloading its case)
    Checked,       // every blob checked against its size and sha256 as Data, in pieces, and not kept
                   // (the buffers stay empty): verifying cases never needs their memory
};

// Reads one case folder. Throws gi::Error naming the file for a missing or malformed manifest, a
// missing, truncated or corrupt blob, or a reference that does not hold.
TestCase read_test_case(const std::filesystem::path& folder, CaseLoad load = CaseLoad::Data);

// Case folders under `dir` (each holding a manifest.xml), sorted by name; `dir` itself when it is
// a case folder. Temporary folders of recordings in progress are ignored. With `kernel` non-empty,
// only the cases of that kernel: folders named "<kernel>-NNNN" (its file_name_part) whose manifest
// records it (and `dir` itself only when its manifest does). Throws gi::Error when `dir` does not
// exist, when a folder named like a case ("NAME-NNNN") has no manifest.xml (a case lost is never
// skipped quietly), and when its manifest records a kernel the folder is not named after.
std::vector<std::filesystem::path> list_test_cases(const std::filesystem::path& dir,
                                                   const std::string& kernel = {});

}  // namespace gi
