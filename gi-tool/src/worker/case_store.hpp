#pragma once
// Cases for workers whose node does not see the master's files (a launcher: worker/launcher.hpp),
// content-addressed. A case folder is named by the sha256 of its manifest.xml, which holds every
// blob's size and sha256, so the hash names the whole case. The master adds the hash to its
// load-case request; a worker that cannot read the master's folder, or reads another file there,
// takes the case from its store (a folder per node, kept across workers), and when the store lacks
// it answers "case-missing": the master then sends the case's files once ("put-case"), the worker
// checks and stores them ("case-stored"), and the load-case is asked again. Where the node sees
// the master's folder nothing is sent.
#include <filesystem>
#include <optional>
#include <string>

#include "worker/case_messages.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {

// The content hash of the case in `folder`: its manifest's sha256. Throws gi::Error naming the file.
std::string case_content_sha256(const std::filesystem::path& folder);

// "put-case": the files of the case in `folder` (manifest.xml and its blobs; fields file<i> and
// size<i>, their bytes one after another in the payload) under `sha256`. Throws gi::Error naming
// the case when it is larger than a message may be (2 GiB), with what to do.
Message put_case_message(const std::filesystem::path& folder, const std::string& sha256);

// "case-missing", the answer to a load-case whose case the worker can neither read nor has stored.
Message case_missing_message(int slot, const std::string& sha256);

// A worker's store of cases sent to it: <dir>/<sha256>/, a folder per case.
class CaseStore {
public:
    explicit CaseStore(std::filesystem::path dir) : dir_(std::move(dir)) {}
    // $GI_WORKER_CASE_STORE, else <temporary folder>/gi-worker-cases-<uid>: one per user and node,
    // so a worker started on a node where another worker stored a case finds it.
    static std::filesystem::path default_dir();

    // Where to read the case a load-case names: the master's path when it is readable here
    // (`master_paths_readable`) and its manifest has the request's hash (or the request has none),
    // else the stored copy; nullopt when there is neither (answer case_missing_message).
    std::optional<std::filesystem::path> locate(const LoadCase& request, bool master_paths_readable = true) const;

    // Stores a put-case's files: the manifest must have the hash it is sent under and every blob
    // its manifest's size and sha256 (read_test_case, CaseLoad::Checked). Returns the reply:
    // "case-stored" with the hash, or an "error" naming what did not match.
    Message put(const Message& put_case);

private:
    void ensure_dir() const;  // created 0700; refused unless a folder of this user's, not a link
    std::filesystem::path dir_;
};

}  // namespace gi::worker
