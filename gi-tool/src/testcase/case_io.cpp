#include "testcase/case_io.hpp"

#include <tinyxml2.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <system_error>

#include <unistd.h>

#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/format.hpp"
#include "util/hash.hpp"

namespace gi {
namespace fs = std::filesystem;

namespace {

std::string sha256_of(const Bytes& bytes) {
    Sha256 hash;
    hash.update(bytes.data(), bytes.size());
    return hash.hex_digest();
}

std::string hex_encode(const Bytes& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

std::optional<Bytes> hex_decode(std::string_view text) {
    if (text.size() % 2) return std::nullopt;
    Bytes out;
    for (std::size_t i = 0; i < text.size(); i += 2) {
        unsigned value = 0;
        auto [ptr, ec] = std::from_chars(text.data() + i, text.data() + i + 2, value, 16);
        if (ec != std::errc() || ptr != text.data() + i + 2) return std::nullopt;
        out.push_back(static_cast<unsigned char>(value));
    }
    return out;
}

void write_file(const fs::path& path, const Bytes& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) throw Error(path.string() + ": cannot write test-case data (disk full or no permission?)");
}

std::string blob_name(std::size_t index, bool after) {
    return "buffer" + std::to_string(index) + (after ? ".after.bin" : ".before.bin");
}

std::string random_token() {
    std::random_device device;
    std::ostringstream out;
    out << std::hex << device() << device();
    return out.str();
}

// A buffer's memory, or an error naming the blob when this machine cannot hold it (a manifest
// may claim any size; a sparse file matches it at no cost).
Bytes blob_memory(const fs::path& path, std::uint64_t size) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    const std::uint64_t memory = pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
    const std::string cannot = path.string() + ": cannot load " + std::to_string(size) + " bytes of test-case data: ";
    if (memory > 0 && size > memory)
        throw Error(cannot + "more than this machine's memory (" + std::to_string(memory) + " bytes)");
    try {
        return Bytes(size);
    } catch (const std::bad_alloc&) {
        throw Error(cannot + "out of memory");
    }
}

void write_pointers(tinyxml2::XMLElement* parent, const std::vector<EmbeddedPointer>& pointers) {
    for (const EmbeddedPointer& p : pointers) {
        auto* e = parent->InsertNewChildElement("pointer");
        e->SetAttribute("at", std::to_string(p.at).c_str());
        e->SetAttribute("buffer", p.buffer);
        e->SetAttribute("offset", std::to_string(p.offset).c_str());
    }
}

std::string manifest_text(const TestCase& tc, const std::vector<std::string>& before_sha,
                          const std::vector<std::string>& after_sha) {
    tinyxml2::XMLDocument doc;
    doc.InsertEndChild(doc.NewDeclaration());
    auto* root = doc.NewElement("gi-test-case");
    root->SetAttribute("format", kTestCaseFormat);
    doc.InsertEndChild(root);

    auto* kernel = root->InsertNewChildElement("kernel");
    kernel->SetAttribute("name", tc.kernel.c_str());
    if (!tc.symbol.empty()) kernel->SetAttribute("symbol", tc.symbol.c_str());
    auto* launch = root->InsertNewChildElement("launch");
    launch->SetAttribute("grid", to_string(tc.grid).c_str());
    launch->SetAttribute("block", to_string(tc.block).c_str());
    launch->SetAttribute("shared-bytes", tc.shared_bytes);
    auto* device = root->InsertNewChildElement("device");
    device->SetAttribute("name", tc.device.c_str());
    device->SetAttribute("compute-capability", tc.compute_capability);

    auto* buffers = root->InsertNewChildElement("buffers");
    for (std::size_t i = 0; i < tc.buffers.size(); ++i) {
        const CaseBuffer& b = tc.buffers[i];
        auto* e = buffers->InsertNewChildElement("buffer");
        e->SetAttribute("index", static_cast<int>(i));
        e->SetAttribute("size", std::to_string(b.size).c_str());
        e->SetAttribute("element", std::string(to_string(b.element)).c_str());
        e->SetAttribute("read-only", b.read_only);
        e->SetAttribute("changed", b.changed);
        if (!b.variable.empty()) e->SetAttribute("variable", b.variable.c_str());
        auto* before = e->InsertNewChildElement("before");
        before->SetAttribute("file", blob_name(i, false).c_str());
        before->SetAttribute("sha256", before_sha[i].c_str());
        if (b.changed) {
            auto* after = e->InsertNewChildElement("after");
            after->SetAttribute("file", blob_name(i, true).c_str());
            after->SetAttribute("sha256", after_sha[i].c_str());
        }
        write_pointers(e, b.pointers);
    }
    auto* args = root->InsertNewChildElement("args");
    for (std::size_t i = 0; i < tc.args.size(); ++i) {
        const CaseArg& a = tc.args[i];
        auto* e = args->InsertNewChildElement("arg");
        e->SetAttribute("index", static_cast<int>(i));
        e->SetAttribute("kind", std::string(to_string(a.kind)).c_str());
        e->SetAttribute("size", a.size);
        e->SetAttribute("element", std::string(to_string(a.element)).c_str());
        if (a.kind == CaseArg::Kind::Scalar) {
            e->SetAttribute("bytes", hex_encode(a.value).c_str());
            e->SetAttribute("sha256", sha256_of(a.value).c_str());
            write_pointers(e, a.pointers);
        } else if (a.kind == CaseArg::Kind::Pointer) {
            e->SetAttribute("buffer", a.buffer);
            e->SetAttribute("offset", std::to_string(a.offset).c_str());
            e->SetAttribute("const", a.is_const);
        } else {
            e->SetAttribute("const", a.is_const);
        }
    }
    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    return printer.CStr();
}

// Why `pointers` held in `bytes` bytes cannot hold in `tc`, or "".
std::string pointers_problem(const std::vector<EmbeddedPointer>& pointers, std::uint64_t bytes, const TestCase& tc) {
    for (const EmbeddedPointer& p : pointers) {
        if (p.at > bytes || bytes - p.at < 8)
            return "an embedded pointer at byte " + std::to_string(p.at) + " does not fit its " + std::to_string(bytes) + " bytes";
        if (p.buffer < 0 || static_cast<std::size_t>(p.buffer) >= tc.buffers.size())
            return "an embedded pointer at byte " + std::to_string(p.at) + " points to buffer " + std::to_string(p.buffer) +
                   ", which does not exist";
        if (p.offset > tc.buffers[p.buffer].size)
            return "an embedded pointer at byte " + std::to_string(p.at) + " points " + std::to_string(p.offset) +
                   " bytes into buffer " + std::to_string(p.buffer) + ", beyond its " +
                   std::to_string(tc.buffers[p.buffer].size) + " bytes";
    }
    return "";
}

void check_consistent(const TestCase& tc) {
    if (tc.kernel.empty()) throw Error("test case has no kernel name");
    for (std::size_t i = 0; i < tc.args.size(); ++i) {
        const CaseArg& a = tc.args[i];
        if (a.kind == CaseArg::Kind::Pointer &&
            (a.buffer < 0 || static_cast<std::size_t>(a.buffer) >= tc.buffers.size()))
            throw Error("test case for '" + tc.kernel + "': argument " + std::to_string(i) +
                        " points to buffer " + std::to_string(a.buffer) + ", which does not exist");
        if (const std::string why = pointers_problem(a.pointers, a.value.size(), tc); !why.empty())
            throw Error("test case for '" + tc.kernel + "': argument " + std::to_string(i) + ": " + why);
    }
    for (std::size_t i = 0; i < tc.buffers.size(); ++i) {
        const CaseBuffer& b = tc.buffers[i];
        if (b.before.size() != b.size || (b.changed && b.after.size() != b.size))
            throw Error("test case for '" + tc.kernel + "': buffer " + std::to_string(i) +
                        " holds fewer or more bytes than its size " + std::to_string(b.size));
        if (const std::string why = pointers_problem(b.pointers, b.size, tc); !why.empty())
            throw Error("test case for '" + tc.kernel + "': buffer " + std::to_string(i) + ": " + why);
    }
}

// Renames the finished case folder `folder` into `record_dir` as "<kernel>-NNNN", the first free
// number. rename() refuses an existing non-empty folder, so two recorders writing into one folder
// never overwrite each other.
fs::path place_case_folder(const fs::path& folder, const fs::path& record_dir, const std::string& kernel) {
    const std::string stem = file_name_part(kernel);
    std::error_code ec;
    for (int n = 0; n < 1000000; ++n) {
        char suffix[16];
        std::snprintf(suffix, sizeof suffix, "-%04d", n);
        const fs::path target = record_dir / (stem + suffix);
        if (fs::exists(fs::symlink_status(target, ec))) continue;
        fs::rename(folder, target, ec);
        if (!ec) return target;
        if (ec != std::errc::file_exists && ec != std::errc::directory_not_empty)
            throw Error(target.string() + ": cannot move the recorded case into place: " + ec.message());
    }
    throw Error(record_dir.string() + ": no free case number left for kernel '" + kernel + "'");
}

}  // namespace

fs::path write_test_case(const TestCase& tc, const fs::path& record_dir) {
    check_consistent(tc);
    std::error_code ec;
    fs::create_directories(record_dir, ec);
    if (ec) throw Error(record_dir.string() + ": cannot create the recording folder: " + ec.message());

    const std::string stem = file_name_part(tc.kernel);
    const fs::path temp = record_dir / (".tmp-" + stem + "-" + random_token());
    try {
        if (!fs::create_directory(temp, ec) || ec)
            throw Error(temp.string() + ": cannot create a temporary folder: " + ec.message());
        std::vector<std::string> before_sha, after_sha;
        for (std::size_t i = 0; i < tc.buffers.size(); ++i) {
            const CaseBuffer& b = tc.buffers[i];
            write_file(temp / blob_name(i, false), b.before);
            before_sha.push_back(sha256_of(b.before));
            if (b.changed) {
                write_file(temp / blob_name(i, true), b.after);
                after_sha.push_back(sha256_of(b.after));
            } else {
                after_sha.push_back(before_sha.back());
            }
        }
        const std::string manifest = manifest_text(tc, before_sha, after_sha);
        write_file(temp / kManifestName, Bytes(manifest.begin(), manifest.end()));

        return place_case_folder(temp, record_dir, tc.kernel);
    } catch (...) {
        fs::remove_all(temp, ec);
        throw;
    }
}

fs::path move_test_case(const fs::path& folder, const fs::path& record_dir) {
    const TestCase tc = read_test_case(folder, CaseLoad::ManifestOnly);
    std::error_code ec;
    fs::create_directories(record_dir, ec);
    if (ec) throw Error(record_dir.string() + ": cannot create the recording folder: " + ec.message());
    return place_case_folder(folder, record_dir, tc.kernel);
}

namespace {

struct ManifestReader {
    fs::path manifest;

    [[noreturn]] void fail(const tinyxml2::XMLElement* at, const std::string& what,
                           const std::string& hint = "record the case again") const {
        throw_at(manifest.string(), at ? at->GetLineNum() : 0, what, hint);
    }

    const tinyxml2::XMLElement* child(const tinyxml2::XMLElement* parent, const char* name) const {
        const auto* e = parent->FirstChildElement(name);
        if (!e) fail(parent, std::string("missing <") + name + "> element");
        return e;
    }

    std::string text(const tinyxml2::XMLElement* e, const char* attribute) const {
        const char* value = e->Attribute(attribute);
        if (!value) fail(e, std::string("<") + e->Name() + "> lacks the attribute '" + attribute + "'");
        return value;
    }

    unsigned long long number(const tinyxml2::XMLElement* e, const char* attribute) const {
        const std::string value = text(e, attribute);
        unsigned long long parsed = 0;
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), parsed);
        if (value.empty() || ec != std::errc() || ptr != value.data() + value.size())
            fail(e, std::string("attribute '") + attribute + "' of <" + e->Name() +
                        "> is not a non-negative integer: '" + value + "'");
        return parsed;
    }

    std::uint32_t number32(const tinyxml2::XMLElement* e, const char* attribute) const {
        const unsigned long long v = number(e, attribute);
        if (v > 0xffffffffull) fail(e, std::string("attribute '") + attribute + "' is too large");
        return static_cast<std::uint32_t>(v);
    }

    bool flag(const tinyxml2::XMLElement* e, const char* attribute) const {
        const std::string value = text(e, attribute);
        if (value == "true" || value == "1") return true;
        if (value == "false" || value == "0") return false;
        fail(e, std::string("attribute '") + attribute + "' must be true or false, not '" + value + "'");
    }

    ElementType element(const tinyxml2::XMLElement* e) const {
        const std::string value = text(e, "element");
        auto type = element_type_from_string(value);
        if (!type) fail(e, "unknown element type '" + value + "' (expected bytes, i8..u64, f16, bf16, f32, f64)");
        return *type;
    }

    Dim3 dim3(const tinyxml2::XMLElement* e, const char* attribute) const {
        const std::string value = text(e, attribute);
        Dim3 d;
        std::uint32_t* parts[3] = {&d.x, &d.y, &d.z};
        std::size_t start = 0;
        for (int i = 0; i < 3; ++i) {
            const std::size_t comma = value.find(',', start);
            const std::string part = value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            unsigned long long v = 0;
            auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
            if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v == 0 || v > 0xffffffffull ||
                (i < 2 && comma == std::string::npos) || (i == 2 && comma != std::string::npos))
                fail(e, std::string("attribute '") + attribute + "' must be three positive integers X,Y,Z, not '" +
                            value + "'");
            *parts[i] = static_cast<std::uint32_t>(v);
            start = comma + 1;
        }
        return d;
    }

    std::vector<EmbeddedPointer> pointers(const tinyxml2::XMLElement* parent) const {
        std::vector<EmbeddedPointer> out;
        for (const auto* e = parent->FirstChildElement("pointer"); e; e = e->NextSiblingElement("pointer")) {
            EmbeddedPointer p;
            p.at = number(e, "at");
            p.buffer = static_cast<int>(number32(e, "buffer"));
            p.offset = number(e, "offset");
            out.push_back(p);
        }
        return out;
    }

    // `keep`: the bytes are returned (else only checked, as `gi-tool cases` does, which so never
    // holds a case's buffers in memory).
    Bytes blob(const tinyxml2::XMLElement* e, std::uint64_t size, std::string* sha_out, bool verify = true,
               bool keep = true) const {
        const std::string file = text(e, "file");
        const std::string sha = text(e, "sha256");
        if (file.find('/') != std::string::npos || file.find("..") != std::string::npos)
            fail(e, "blob name '" + file + "' must be a plain file name inside the case folder");
        const fs::path path = manifest.parent_path() / file;
        const std::string named_in = manifest.string() + ":" + std::to_string(e->GetLineNum());
        std::error_code ec;
        // The recorder writes plain files only. A link could lead out of the case folder, which the
        // name check above keeps data from doing; a device or a pipe is no data of a launch.
        const fs::file_status status = fs::symlink_status(path, ec);
        if (!ec && fs::is_symlink(status))
            throw Error(path.string() + ": test-case data named in " + named_in + " is a symbolic link; a case's data "
                        "must be a file inside its folder (copy the file in, or record the case again)");
        if (ec || !fs::exists(status))
            throw Error(path.string() + ": missing test-case data named in " + named_in + " (record the case again)");
        if (!fs::is_regular_file(status))
            throw Error(path.string() + ": test-case data named in " + named_in + " is not a regular file (" +
                        (fs::is_directory(status) ? "a folder" : "a device or a pipe?") + "); record the case again");
        const auto actual = fs::file_size(path, ec);
        if (ec) throw Error(path.string() + ": cannot read test-case data named in " + named_in + ": " + ec.message());
        if (actual != size)
            throw Error(path.string() + ": truncated or resized test-case data: " + std::to_string(actual) +
                        " bytes, the manifest says " + std::to_string(size) + " (record the case again)");
        // Read in pieces, each hashed as it comes, through the guard every input passes.
        Bytes bytes = keep ? blob_memory(path, size) : Bytes();
        Sha256 hash;
        std::uint64_t filled = 0;
        read_input_file_in_pieces(path, size, "test-case data", [&](const char* data, std::size_t n) {
            if (verify) hash.update(data, n);
            if (keep) std::memcpy(bytes.data() + filled, data, n);
            filled += n;
        });
        if (filled != size) throw Error(path.string() + ": cannot read test-case data (it shrank while being read)");
        if (verify && hash.hex_digest() != sha)
            throw Error(path.string() + ": corrupt test-case data: its sha256 differs from the one in " +
                        manifest.string() + " (record the case again)");
        *sha_out = sha;
        return bytes;
    }
};

}  // namespace

TestCase read_test_case(const fs::path& folder, CaseLoad load) {
    ManifestReader r{folder / kManifestName};
    if (!fs::is_regular_file(r.manifest))
        throw Error(r.manifest.string() + ": no test-case manifest here (is '" + folder.string() +
                    "' a folder written by the gi::launch recorder?)");
    const std::string manifest_xml = read_input_file(r.manifest, kMaxManifestBytes, "test-case manifest");
    tinyxml2::XMLDocument doc;
    if (doc.Parse(manifest_xml.data(), manifest_xml.size()) != tinyxml2::XML_SUCCESS)
        throw_at(r.manifest.string(), doc.ErrorLineNum(), std::string("malformed XML: ") + doc.ErrorStr(),
                 "the file is corrupt or truncated; record the case again");
    const auto* root = doc.RootElement();
    if (!root || std::strcmp(root->Name(), "gi-test-case") != 0)
        r.fail(root, "the root element is not <gi-test-case>");
    const unsigned long long format = r.number(root, "format");
    if (format < static_cast<unsigned>(kOldestTestCaseFormat) || format > static_cast<unsigned>(kTestCaseFormat))
        r.fail(root, "test-case format " + r.text(root, "format") + " is not one this gi-tool reads (" +
                         std::to_string(kOldestTestCaseFormat) + " to " + std::to_string(kTestCaseFormat) + ")",
               "record the cases again with this version's recorder");

    TestCase tc;
    tc.path = folder.string();
    tc.kernel = r.text(r.child(root, "kernel"), "name");
    if (tc.kernel.empty()) r.fail(root->FirstChildElement("kernel"), "the kernel name is empty");
    if (const char* symbol = root->FirstChildElement("kernel")->Attribute("symbol")) tc.symbol = symbol;
    const auto* launch = r.child(root, "launch");
    tc.grid = r.dim3(launch, "grid");
    tc.block = r.dim3(launch, "block");
    tc.shared_bytes = r.number32(launch, "shared-bytes");
    if (const auto* device = root->FirstChildElement("device")) {
        tc.device = device->Attribute("name") ? device->Attribute("name") : "";
        tc.compute_capability = static_cast<int>(r.number32(device, "compute-capability"));
    }

    const auto* buffers = r.child(root, "buffers");
    for (const auto* e = buffers->FirstChildElement("buffer"); e; e = e->NextSiblingElement("buffer")) {
        if (r.number(e, "index") != tc.buffers.size())
            r.fail(e, "buffers must be numbered 0, 1, 2... in order; expected index " + std::to_string(tc.buffers.size()));
        CaseBuffer b;
        b.size = r.number(e, "size");
        b.element = r.element(e);
        b.read_only = r.flag(e, "read-only");
        b.changed = r.flag(e, "changed");
        if (const char* variable = e->Attribute("variable")) {
            b.variable = variable;
            if (b.variable.empty()) r.fail(e, "the attribute 'variable' is empty (it names a module variable)");
        }
        b.pointers = r.pointers(e);
        const auto* before = r.child(e, "before");
        const auto* after = e->FirstChildElement("after");
        if (b.changed && !after) r.fail(e, "a changed buffer needs an <after> element");
        if (load != CaseLoad::ManifestOnly) {
            const bool verify = load != CaseLoad::DataTrusted, keep = load != CaseLoad::Checked;
            b.before = r.blob(before, b.size, &b.before_sha256, verify, keep);
            if (b.changed) {
                b.after = r.blob(after, b.size, &b.after_sha256, verify, keep);
            } else {
                b.after = b.before;
                b.after_sha256 = b.before_sha256;
            }
        } else {
            b.before_sha256 = r.text(before, "sha256");
            b.after_sha256 = b.changed ? r.text(after, "sha256") : b.before_sha256;
        }
        tc.buffers.push_back(std::move(b));
    }

    const auto* args = r.child(root, "args");
    for (const auto* e = args->FirstChildElement("arg"); e; e = e->NextSiblingElement("arg")) {
        if (r.number(e, "index") != tc.args.size())
            r.fail(e, "arguments must be numbered 0, 1, 2... in order; expected index " + std::to_string(tc.args.size()));
        CaseArg a;
        const std::string kind = r.text(e, "kind");
        a.size = r.number32(e, "size");
        a.element = r.element(e);
        if (kind == "scalar") {
            a.kind = CaseArg::Kind::Scalar;
            auto value = hex_decode(r.text(e, "bytes"));
            if (!value) r.fail(e, "attribute 'bytes' is not hexadecimal");
            if (value->size() != a.size)
                r.fail(e, "scalar holds " + std::to_string(value->size()) + " bytes but its size is " + std::to_string(a.size));
            if (sha256_of(*value) != r.text(e, "sha256")) r.fail(e, "scalar bytes do not match their sha256 (corrupt manifest)");
            a.value = std::move(*value);
            a.pointers = r.pointers(e);
        } else if (kind == "pointer") {
            a.kind = CaseArg::Kind::Pointer;
            a.buffer = static_cast<int>(r.number32(e, "buffer"));
            a.offset = r.number(e, "offset");
            a.is_const = r.flag(e, "const");
            if (static_cast<std::size_t>(a.buffer) >= tc.buffers.size())
                r.fail(e, "argument points to buffer " + std::to_string(a.buffer) + ", but the case has " +
                              std::to_string(tc.buffers.size()) + " buffers");
            // A pointer argument points at a byte of its buffer; into an empty buffer only at its start.
            const std::uint64_t size = tc.buffers[a.buffer].size;
            if (size == 0 ? a.offset != 0 : a.offset >= size)
                r.fail(e, "pointer offset " + std::to_string(a.offset) + " lies outside its buffer of " +
                              std::to_string(size) + " bytes" + (size == 0 ? " (an empty buffer takes offset 0 only)" : ""));
        } else if (kind == "null") {
            a.kind = CaseArg::Kind::Null;
            a.is_const = r.flag(e, "const");
        } else {
            r.fail(e, "unknown argument kind '" + kind + "' (expected scalar, pointer or null)");
        }
        tc.args.push_back(std::move(a));
    }
    // Embedded pointers name buffers, so they are checked once all are read.
    for (const auto* e = args->FirstChildElement("arg"); e; e = e->NextSiblingElement("arg")) {
        const CaseArg& a = tc.args[r.number(e, "index")];
        if (const std::string why = pointers_problem(a.pointers, a.value.size(), tc); !why.empty()) r.fail(e, why);
    }
    for (const auto* e = buffers->FirstChildElement("buffer"); e; e = e->NextSiblingElement("buffer")) {
        const CaseBuffer& b = tc.buffers[r.number(e, "index")];
        if (const std::string why = pointers_problem(b.pointers, b.size, tc); !why.empty()) r.fail(e, why);
    }
    return tc;
}

std::vector<fs::path> list_test_cases(const fs::path& dir, const std::string& kernel) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error(dir.string() + ": no such folder of recorded test cases (run the recorder with GI_RECORD_DIR set)");
    // A case folder given itself, under whatever name the user gave it: its manifest says whose it is.
    if (fs::is_regular_file(dir / kManifestName))
        return kernel.empty() || read_test_case(dir, CaseLoad::ManifestOnly).kernel == kernel ? std::vector<fs::path>{dir}
                                                                                              : std::vector<fs::path>{};
    std::vector<fs::path> cases;
    // The recorder names case folders KERNEL-N and renames each into place only once its manifest
    // is written, so such a folder without one lost it: skipping it would quietly test less.
    auto numbered = [](const std::string& name, std::size_t stem_size) {
        return name.size() > stem_size + 1 && name[stem_size] == '-' &&
               std::all_of(name.begin() + static_cast<long>(stem_size) + 1, name.end(),
                           [](char c) { return c >= '0' && c <= '9'; });
    };
    const std::string stem = file_name_part(kernel);
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        const std::string name = entry.path().filename().string();
        if (!entry.is_directory() || name.rfind(".tmp-", 0) == 0) continue;
        const std::size_t dash = name.rfind('-');
        const bool case_folder = dash != std::string::npos && dash > 0 && numbered(name, dash);
        if (!kernel.empty() && !(case_folder && dash == stem.size() && name.compare(0, dash, stem) == 0)) continue;
        if (!fs::exists(entry.path() / kManifestName)) {
            if (!case_folder) continue;
            throw Error(entry.path().string() + ": a recorded test case without its " + kManifestName +
                        " (deleted or damaged?); record the case again, or remove the folder to go on without it");
        }
        if (case_folder) {
            // Cases are selected by folder name, so a folder must hold a case of the kernel it is
            // named after. Names that differ only where a folder name cannot follow ("K<16>" and
            // "K_16_" both make K_16_-NNNN) share the name; the manifest tells them apart.
            const std::string recorded = read_test_case(entry.path(), CaseLoad::ManifestOnly).kernel;
            if (file_name_part(recorded) != name.substr(0, dash))
                throw Error(entry.path().string() + ": the folder is named for kernel '" + name.substr(0, dash) +
                            "' but its " + kManifestName + " records a launch of '" + excerpt(recorded) +
                            "' (renamed, or copied from another recording?); give it back its name (" +
                            file_name_part(recorded) + "-NNNN) or remove it");
            if (!kernel.empty() && recorded != kernel) continue;
        }
        cases.push_back(entry.path());
    }
    if (ec) throw Error(dir.string() + ": cannot list test cases: " + ec.message());
    std::sort(cases.begin(), cases.end());
    return cases;
}

}  // namespace gi
