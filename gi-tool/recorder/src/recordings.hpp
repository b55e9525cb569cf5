#pragma once
// What a process has recorded, kernel by kernel: the cases recorded earlier (GI_RECORD_DIR,
// GI_RECORD_KNOWN_DIR) counted toward the limit (GI_RECORD_LIMIT) and fingerprinted, the launches
// recorded and those skipped as identical to a recorded one, summed up in one line per kernel at
// exit. And the host memory the snapshots reuse.
#include <cstddef>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compile/module_variables.hpp"
#include "testcase/case_fingerprint.hpp"
#include "testcase/test_case.hpp"

namespace gi::launch_detail {

// GI_RECORD_LIMIT: distinct cases per kernel name (default 16). Throws RecordError when malformed.
std::size_t record_limit();

// GI_RECORD_GLOBALS: the module variables to capture ("const:c_Kernel,global:counter"), as
// `gi-tool record` lists them from the kernel file. Throws RecordError when malformed.
const std::vector<ModuleVariable>& requested_variables();

// Host memory for snapshots, kept from a launch that was not recorded for the next one: a timing
// loop's identical launches are each snapshot to be compared, and fresh memory of hundreds of
// megabytes costs as much to zero and fault in as the copy itself.
class SnapshotMemory {
public:
    Bytes take(std::size_t size);
    // Keeps the snapshots of `tc`'s inputs for the next launch, in place of those kept before.
    void keep(TestCase& tc);
    void release() { spare_ = {}; }

private:
    std::vector<Bytes> spare_;
};

// What the recorder did with one kernel's launches in this process.
struct KernelRecording {
    std::string who;            // how its messages start ("gi::launch recording")
    std::size_t earlier = 0;    // its cases already recorded (GI_RECORD_DIR, GI_RECORD_KNOWN_DIR) when first launched
    std::size_t recorded = 0;   // by this process
    std::size_t skipped = 0;    // launches identical to a recorded one, not recorded again
    std::set<CaseFingerprint> seen;  // of every case counted in `earlier` and `recorded`
    bool limit_reached() const { return earlier + recorded >= record_limit(); }
};

// The one line a kernel's recording ends with when identical launches were skipped ("" when none).
std::string skipped_summary(const std::string& name, const KernelRecording& k);

// Every kernel's recording, summed up on standard error when the program exits.
class Recordings {
public:
    ~Recordings();

    // The kernel's recording, started (the cases recorded earlier counted and, while under the
    // limit, fingerprinted) at its first launch.
    KernelRecording& of(const char* name, const std::filesystem::path& dir, const char* who);

    SnapshotMemory memory;

private:
    std::map<std::string, KernelRecording> kernels_;
};

}  // namespace gi::launch_detail
