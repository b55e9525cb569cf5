#include "worker/case_store.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <random>

#include "testcase/case_io.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/hash.hpp"

namespace gi::worker {
namespace fs = std::filesystem;

namespace {

bool is_sha256(const std::string& text) {
    return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// A file name the worker may create in a case folder: no folder, no "." or "..".
bool plain_name(const std::string& name) {
    return !name.empty() && name != "." && name != ".." && name.find('/') == std::string::npos && name.find('\0') == std::string::npos;
}

std::string read_whole(const fs::path& path) {
    std::string bytes;
    read_input_file_in_pieces(path, kMaxPayloadBytes, "a recorded case's file",
                              [&](const char* data, std::size_t size) { bytes.append(data, size); });
    return bytes;
}

}  // namespace

std::string case_content_sha256(const fs::path& folder) {
    return sha256_hex(read_input_file(folder / kManifestName, kMaxManifestBytes, "a recorded case's manifest"));
}

Message put_case_message(const fs::path& folder, const std::string& sha256) {
    Message m{"put-case", {{"sha256", sha256}}, {}};
    std::vector<fs::path> files;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder))
        if (entry.is_regular_file()) files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    std::uintmax_t total = 0;
    for (const fs::path& file : files) total += fs::file_size(file);
    if (total > kMaxPayloadBytes)
        throw Error(folder.string() + ": this case (" + std::to_string(total >> 20) +
                    " MiB) is too large to send to a worker through the launcher (2 GiB at most); put the cases in a "
                    "folder the GPU nodes see at the same path (a shared file system), or record smaller cases");
    m.payload.reserve(static_cast<std::size_t>(total));
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string bytes = read_whole(files[i]);
        m.fields["file" + std::to_string(i)] = files[i].filename().string();
        m.fields["size" + std::to_string(i)] = std::to_string(bytes.size());
        m.payload += bytes;
    }
    return m;
}

Message case_missing_message(int slot, const std::string& sha256) {
    return {"case-missing", {{"slot", std::to_string(slot)}, {"sha256", sha256}}, {}};
}

fs::path CaseStore::default_dir() {
    if (const char* dir = std::getenv("GI_WORKER_CASE_STORE"); dir && *dir) return dir;
    std::error_code ec;
    fs::path tmp = fs::temp_directory_path(ec);
    if (ec) tmp = "/tmp";
    return tmp / ("gi-worker-cases-" + std::to_string(::getuid()));
}

std::optional<fs::path> CaseStore::locate(const LoadCase& request, bool master_paths_readable) const {
    if (request.sha256.empty()) return fs::path(request.path);
    if (master_paths_readable) {
        try {
            if (case_content_sha256(request.path) == request.sha256) return fs::path(request.path);
        } catch (const std::exception&) {
            // Not there, or not readable here: the store's copy, or the master sends it.
        }
    }
    if (!is_sha256(request.sha256)) return std::nullopt;
    const fs::path stored = dir_ / request.sha256;
    std::error_code ec;
    if (fs::is_regular_file(stored / kManifestName, ec)) return stored;
    return std::nullopt;
}

void CaseStore::ensure_dir() const {
    std::error_code ec;
    fs::create_directories(dir_, ec);
    ::chmod(dir_.c_str(), 0700);
    struct stat st {};
    if (::lstat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid())
        throw Error("the worker's case store " + dir_.string() +
                    " is not a folder of this user's (set GI_WORKER_CASE_STORE to a folder of your own on the GPU node)");
}

Message CaseStore::put(const Message& m) {
    const std::string sha256 = m.get("sha256");
    try {
        if (!is_sha256(sha256)) throw Error("put-case: '" + sha256 + "' is not a sha256");
        ensure_dir();
        const fs::path final_dir = dir_ / sha256;
        std::random_device random;
        const fs::path partial = dir_ / (".partial-" + std::to_string(::getpid()) + "-" + std::to_string(random()));
        fs::create_directory(partial);
        try {
            std::size_t offset = 0;
            for (std::size_t i = 0; m.fields.count("file" + std::to_string(i)); ++i) {
                const std::string name = m.get("file" + std::to_string(i));
                const long long size = m.integer("size" + std::to_string(i), -1);
                if (!plain_name(name)) throw Error("put-case: '" + name + "' is not a file name");
                if (size < 0 || offset + static_cast<std::size_t>(size) > m.payload.size())
                    throw Error("put-case: file " + name + "'s size does not fit the payload");
                std::ofstream out(partial / name, std::ios::binary | std::ios::trunc);
                out.write(m.payload.data() + offset, size);
                if (!out.flush()) throw Error("put-case: cannot write " + (partial / name).string());
                offset += static_cast<std::size_t>(size);
            }
            if (offset != m.payload.size()) throw Error("put-case: the payload holds bytes no file claims");
            if (case_content_sha256(partial) != sha256)
                throw Error("put-case: the manifest sent does not have the sha256 " + sha256 + " it was sent under");
            read_test_case(partial, CaseLoad::Checked);  // every blob its manifest's size and sha256
            std::error_code ec;
            fs::rename(partial, final_dir, ec);
            if (ec) fs::remove_all(partial);  // another worker of this node stored it first
        } catch (...) {
            std::error_code ignored;
            fs::remove_all(partial, ignored);
            throw;
        }
        return {"case-stored", {{"sha256", sha256}}, {}};
    } catch (const std::exception& e) {
        return to_message(ErrorReply{e.what()});
    }
}

}  // namespace gi::worker
