#include "worker/reference_file.hpp"


#include <fstream>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/hash.hpp"
#include "worker/protocol.hpp"

namespace gi::worker {
namespace fs = std::filesystem;

namespace {
constexpr const char* kType = "gi-reference";

// Covers every field a reader acts on, not only the bytes.
std::string digest(const Message& m) {
    Sha256 h;
    for (const char* key : {"case", "original", "sizes", "poisonable"}) {
        h.update(std::string(key) + "=" + m.get(key) + "\n");
    }
    h.update(m.payload);
    return h.hex_digest();
}

std::string sizes_text(const std::vector<std::uint64_t>& sizes) {
    std::string text;
    for (std::size_t i = 0; i < sizes.size(); ++i) text += (i ? "," : "") + std::to_string(sizes[i]);
    return text;
}
}  // namespace

std::string write_reference_file(const fs::path& path, const ReferenceOutputs& ref) {
    Message m{kType, {{"case", ref.case_path}, {"original", ref.original_sha256}, {"poisonable", ref.poisonable}}, {}};
    std::vector<std::uint64_t> sizes;
    for (const Bytes& b : ref.outputs) {
        sizes.push_back(b.size());
        m.payload.append(reinterpret_cast<const char*>(b.data()), b.size());
    }
    m.fields["sizes"] = sizes_text(sizes);
    const std::string sha = digest(m);
    m.fields["sha256"] = sha;
    // As every file gi-tool writes: a temporary of this writer's own, renamed into place, so two
    // workers writing the same reference never interleave and a reader never sees half of one.
    try {
        write_file_atomically(path, encode(m), Durability::Scratch);  // the run's own folder, removed after it
    } catch (const Error& e) {
        throw Error(std::string("cannot store the original's reference outputs: ") + e.what());
    }
    return sha;
}

ReferenceOutputs read_reference_file(const fs::path& path, const std::string& expected_sha256,
                                     const std::string& case_path, const std::string& original_sha256,
                                     const std::vector<std::uint64_t>& buffer_sizes) {
    const std::string where = path.string() + ": ";
    std::uint64_t outputs = 0;
    for (std::uint64_t size : buffer_sizes) outputs += size;
    // Read whole through the guarded reader (one read(2) a piece; a stream iterator took about
    // 0.1 s for a 20 MB file, on every case a new worker loads); the outputs plus the header's
    // fields (the write sets' text may be long) at most.
    std::string bytes;
    try {
        bytes = read_input_file(path, outputs + (std::uint64_t{64} << 20), "reference outputs file");
    } catch (const Error& e) {
        throw Error(where + "the reference outputs file is missing, unreadable or too large: " + e.what());
    }
    MessageReader reader;
    std::optional<Message> m;
    try {
        reader.feed(bytes.data(), bytes.size());
        m = reader.next();
    } catch (const Error& e) {
        throw Error(where + "the reference outputs file is malformed: " + e.what());
    }
    if (!m) throw Error(where + "the reference outputs file is truncated (" + std::to_string(bytes.size()) + " bytes)");
    if (reader.buffered() != 0) throw Error(where + "the reference outputs file has trailing bytes");
    if (m->type != kType) throw Error(where + "not a reference outputs file (type '" + m->type + "')");
    if (expected_sha256.empty()) throw Error(where + "no checksum was given to check the reference outputs against");
    const std::string actual = digest(*m);
    if (actual != m->get("sha256") || actual != expected_sha256)
        throw Error(where + "the reference outputs fail their checksum (sha256 " + actual + ", expected " +
                    expected_sha256 + "): the file was changed or damaged");
    if (m->get("case") != case_path)
        throw Error(where + "the reference outputs belong to case '" + m->get("case") + "', not '" + case_path + "'");
    if (m->get("original") != original_sha256)
        throw Error(where + "the reference outputs come from other code of the original kernel");
    if (m->get("sizes") != sizes_text(buffer_sizes))
        throw Error(where + "the reference outputs have buffer sizes " + m->get("sizes") + " but the case has " +
                    sizes_text(buffer_sizes));
    const std::uint64_t total = outputs;
    if (total != m->payload.size())
        throw Error(where + "the reference outputs hold " + std::to_string(m->payload.size()) + " bytes but their sizes add up to " +
                    std::to_string(total));
    ReferenceOutputs ref{case_path, original_sha256, m->get("poisonable"), {}};
    std::size_t at = 0;
    for (std::uint64_t size : buffer_sizes) {
        ref.outputs.emplace_back(m->payload.begin() + static_cast<long>(at), m->payload.begin() + static_cast<long>(at + size));
        at += size;
    }
    return ref;
}

}  // namespace gi::worker
