#include "recordings.hpp"

#include <cstdio>
#include <cstdlib>

#include "gi/launch_args.hpp"
#include "testcase/case_io.hpp"
#include "util/error.hpp"

namespace gi::launch_detail {
namespace {

// GI_RECORD_KNOWN_DIR: a folder of cases recorded earlier by another run (`gi-tool record` sets it
// to its --out, since its program records into a private folder): they count toward the limit
// and a launch identical to one of them is not recorded again.
std::vector<std::filesystem::path> earlier_case_folders(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> folders{dir};
    if (const char* known = std::getenv("GI_RECORD_KNOWN_DIR"); known && *known) {
        std::error_code ec;
        if (!std::filesystem::equivalent(known, dir, ec)) folders.emplace_back(known);
    }
    return folders;
}

// "1 launch", "3 distinct launches".
std::string launches(std::size_t n, const char* what = "launch") {
    return std::to_string(n) + " " + what + (n == 1 ? "" : "es");
}

}  // namespace

std::size_t record_limit() {
    static const std::size_t limit = [] {
        const char* text = std::getenv("GI_RECORD_LIMIT");
        if (!text || !*text) return std::size_t{16};
        char* end = nullptr;
        const long long value = std::strtoll(text, &end, 10);
        if (*end != '\0' || value < 0)
            throw RecordError(std::string("GI_RECORD_LIMIT must be a non-negative integer, not '") + text + "'");
        return static_cast<std::size_t>(value);
    }();
    return limit;
}

const std::vector<ModuleVariable>& requested_variables() {
    static const std::vector<ModuleVariable> variables = [] {
        const char* text = std::getenv("GI_RECORD_GLOBALS");
        try {
            return text ? parse_module_variables_text(text, "GI_RECORD_GLOBALS") : std::vector<ModuleVariable>{};
        } catch (const Error& e) {
            throw RecordError(e.what());
        }
    }();
    return variables;
}

Bytes SnapshotMemory::take(std::size_t size) {
    for (auto it = spare_.begin(); it != spare_.end(); ++it)
        if (it->size() == size) {
            Bytes bytes = std::move(*it);
            spare_.erase(it);
            return bytes;
        }
    return Bytes(size);
}

void SnapshotMemory::keep(TestCase& tc) {
    spare_.clear();
    for (CaseBuffer& b : tc.buffers) spare_.push_back(std::move(b.before));
}

std::string skipped_summary(const std::string& name, const KernelRecording& k) {
    if (k.skipped == 0) return "";
    const std::string head = k.who + " '" + name + "': ";
    if (k.recorded == 0)
        return head + "nothing new recorded: all " + launches(k.skipped) + " had the same inputs as one of the " +
               std::to_string(k.earlier) + " case(s) recorded earlier; record the program on other inputs to add cases";
    if (k.recorded == 1 && k.earlier == 0)
        return head + "all " + launches(k.skipped + 1) + " had the same inputs (geometry, arguments and buffer "
               "contents), so 1 case was recorded and variants are judged on it alone; record the program on more "
               "inputs (other sizes, other data) for a stronger check";
    return head + launches(k.recorded, "distinct launch") + " recorded, " + std::to_string(k.skipped) +
           " skipped as identical to an earlier one" +
           (k.limit_reached() ? " (GI_RECORD_LIMIT " + std::to_string(record_limit()) + " reached)" : "");
}

Recordings::~Recordings() {
    for (const auto& [name, k] : kernels_)
        if (const std::string line = skipped_summary(name, k); !line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
}

KernelRecording& Recordings::of(const char* name, const std::filesystem::path& dir, const char* who) {
    if (const auto it = kernels_.find(name); it != kernels_.end()) return it->second;
    KernelRecording k;
    k.who = who;
    std::vector<std::filesystem::path> cases;
    try {
        for (const std::filesystem::path& folder : earlier_case_folders(dir))
            if (std::filesystem::is_directory(folder))
                for (std::filesystem::path& p : list_test_cases(folder, name)) cases.push_back(std::move(p));
        k.earlier = cases.size();
        // One at a time: a case may hold hundreds of megabytes. Read as written, since this
        // only decides what is worth recording; gi-tool checks the checksums when it reads them.
        if (!k.limit_reached())
            for (const std::filesystem::path& p : cases) k.seen.insert(case_fingerprint(read_test_case(p, CaseLoad::DataTrusted)));
    } catch (const Error& e) {
        throw RecordError(std::string(who) + " '" + name + "': reading the cases recorded earlier: " + e.what());
    }
    return kernels_.emplace(name, std::move(k)).first->second;
}

}  // namespace gi::launch_detail
