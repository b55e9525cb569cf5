#pragma once
// The original kernel's outputs on one case, handed from the worker that computed them to every
// later worker (spares, replacements after a crash or hang), so a fresh worker never has to run
// the original again before it can judge a variant (and never runs GPU work while another worker
// times its launches).
//
// The file is one worker-protocol frame (worker/protocol.hpp): type "gi-reference", fields naming
// the case, the original's code (sha256 of its cubin), the per-buffer sizes, the write sets (which
// elements a variant finds poisoned), and a sha256 over all of those and the payload; the payload is the
// writable buffers' bytes in buffer order. A reader checks all of it against what it expects and
// throws rather than hand back anything doubtful: the caller then recomputes the reference.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "testcase/test_case.hpp"

namespace gi::worker {

struct ReferenceOutputs {
    std::string case_path;          // the case folder the outputs belong to
    std::string original_sha256;    // sha256 of the original's compiled code
    std::string poisonable;         // the write sets learnt (compare/write_set.hpp, write_sets_text)
    std::vector<Bytes> outputs;     // per buffer; empty for read-only buffers
};

// Writes `ref` to `path` atomically (a temporary name, then rename) and returns its checksum,
// which a reader must be given. Throws gi::Error naming the path.
std::string write_reference_file(const std::filesystem::path& path, const ReferenceOutputs& ref);

// Reads a reference written by write_reference_file and checks it: the frame is whole, the
// checksum matches both the file's own record and `expected_sha256`, and it belongs to
// `case_path` and `original_sha256`. `buffer_sizes` has one entry per buffer, 0 for read-only
// ones; the file must agree. Throws gi::Error saying which check failed.
ReferenceOutputs read_reference_file(const std::filesystem::path& path, const std::string& expected_sha256,
                                     const std::string& case_path, const std::string& original_sha256,
                                     const std::vector<std::uint64_t>& buffer_sizes);

}  // namespace gi::worker
