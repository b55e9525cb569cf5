#include "cache/entry.hpp"

#include <tinyxml2.h>

#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <system_error>

#include "util/atomic_file.hpp"
#include "util/error.hpp"
#include "util/file_read.hpp"
#include "util/hash.hpp"
#include "util/text_rule.hpp"

namespace gi {
namespace {

using tinyxml2::XMLDocument;
using tinyxml2::XMLElement;

// Shortest text that reads back as the same double, so the checksum survives a write/read cycle.
std::string format_number(double value) {
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

// Length-prefixed so no value can imitate a field boundary.
void canonical_field(std::string& out, const std::string& name, const std::string& value) {
    out += name + ":" + std::to_string(value.size()) + ":" + value + "\n";
}

struct Reader {
    const std::string& path;

    [[noreturn]] void fail(const XMLElement* at, const std::string& what) const {
        throw Error(located_message(path, at ? at->GetLineNum() : 0, "corrupt cache entry: " + what,
                                    "regenerate it with 'gi-tool cache write' or delete it"));
    }

    void only_attributes(const XMLElement* e, std::set<std::string> allowed) const {
        for (const tinyxml2::XMLAttribute* a = e->FirstAttribute(); a; a = a->Next())
            if (!allowed.count(a->Name()))
                fail(e, "unknown attribute '" + std::string(a->Name()) + "' on <" + e->Name() + ">");
    }

    std::string attribute(const XMLElement* e, const char* name) const {
        const char* value = e->Attribute(name);
        if (!value) fail(e, "<" + std::string(e->Name()) + "> lacks the attribute '" + name + "'");
        return plain(e, "the attribute '" + std::string(name) + "' of <" + e->Name() + ">", value);
    }

    // gi-tool never writes a control character into an entry (cache write refuses them), so one here
    // was put there by hand: refused before it can reach a terminal or a generated file.
    std::string plain(const XMLElement* e, const std::string& what, const std::string& value) const {
        try {
            refuse_control_characters(value, what);
        } catch (const Error& error) {
            fail(e, error.what());
        }
        return value;
    }

    // Exactly one piece of text: GetText() reads only the first, so "<genome>A<![CDATA[B]]></genome>"
    // or a comment between two parts would show a reviewer one genome and a reader another.
    std::string text(const XMLElement* e) const {
        int pieces = 0;
        for (const tinyxml2::XMLNode* child = e->FirstChild(); child; child = child->NextSibling()) {
            if (child->ToText() == nullptr)
                fail(e, "<" + std::string(e->Name()) + "> must hold text only, not elements or comments");
            ++pieces;
        }
        if (pieces > 1)
            fail(e, "<" + std::string(e->Name()) + "> holds " + std::to_string(pieces) +
                        " pieces of text (a second CDATA section?); an entry holds one");
        const char* t = e->GetText();
        return plain(e, "<" + std::string(e->Name()) + ">", t ? t : "");
    }

    double number(const XMLElement* e) const {
        const std::string t = text(e);
        double value = 0;
        const auto result = std::from_chars(t.data(), t.data() + t.size(), value);
        if (t.empty() || result.ec != std::errc() || result.ptr != t.data() + t.size())
            fail(e, "<" + std::string(e->Name()) + "> needs a number, got '" + t + "'");
        return value;
    }

    long long integer(const XMLElement* e) const {
        const std::string t = text(e);
        long long value = 0;
        const auto result = std::from_chars(t.data(), t.data() + t.size(), value);
        if (t.empty() || result.ec != std::errc() || result.ptr != t.data() + t.size())
            fail(e, "<" + std::string(e->Name()) + "> needs an integer, got '" + t + "'");
        return value;
    }

    // Children in order, refusing names outside `allowed` and repeats of names not in `repeatable`.
    std::vector<const XMLElement*> children(const XMLElement* parent, const std::set<std::string>& allowed,
                                            const std::set<std::string>& repeatable = {}) const {
        std::vector<const XMLElement*> out;
        std::set<std::string> seen;
        for (const XMLElement* c = parent->FirstChildElement(); c; c = c->NextSiblingElement()) {
            const std::string name = c->Name();
            if (!allowed.count(name)) fail(c, "unknown element <" + name + "> in <" + parent->Name() + ">");
            if (!repeatable.count(name) && !seen.insert(name).second) fail(c, "<" + name + "> appears twice");
            out.push_back(c);
        }
        return out;
    }

    const XMLElement* required_child(const XMLElement* parent, const char* name) const {
        const XMLElement* c = parent->FirstChildElement(name);
        if (!c) fail(parent, "<" + std::string(parent->Name()) + "> lacks <" + name + ">");
        return c;
    }
};

XMLElement* add_text(XMLDocument& doc, XMLElement* parent, const char* name, const std::string& value) {
    XMLElement* e = doc.NewElement(name);
    e->SetText(value.c_str());
    parent->InsertEndChild(e);
    return e;
}

// The registration's and the provenance's fields, each declared once with its element name: the
// checksum's canonical text, the writer and the reader all walk these lists in this order (the
// checksums of entries already written depend on it).
struct RegistrationField {
    const char* name;
    std::vector<std::string> Registration::*list = nullptr;  // repeatable
    std::string Registration::*text = nullptr;               // once, written even when empty
};
const RegistrationField kRegistrationFields[] = {
    {"function", &Registration::functions}, {"param", &Registration::params},          {"flag", &Registration::flags},
    {"block-size", nullptr, &Registration::block_size}, {"grid", nullptr, &Registration::grid},
    {"tolerance", &Registration::tolerance},
};

std::vector<std::string> values_of(const Registration& r, const RegistrationField& f) {
    return f.list ? r.*f.list : std::vector<std::string>{r.*f.text};
}

struct ProvenanceField {
    const char* name;
    std::string Provenance::*text = nullptr;
    double Provenance::*number = nullptr;
    long long Provenance::*integer = nullptr;
};
const ProvenanceField kProvenanceFields[] = {
    {"origin", &Provenance::origin},
    {"gpu", &Provenance::gpu},
    {"driver", &Provenance::driver},
    {"nvcc", &Provenance::nvcc},
    {"date", &Provenance::date},
    {"tool-version", &Provenance::tool_version},
    {"original-ms", nullptr, &Provenance::original_ms},
    {"variant-ms", nullptr, &Provenance::variant_ms},
    {"cases-validated", nullptr, nullptr, &Provenance::cases_validated},
    {"elements-validated", nullptr, nullptr, &Provenance::elements_validated},
    {"worst-error", nullptr, &Provenance::worst_error},
    {"note", &Provenance::note},
};

std::string value_of(const Provenance& p, const ProvenanceField& f) {
    if (f.text) return p.*f.text;
    if (f.number) return format_number(p.*f.number);
    return std::to_string(p.*f.integer);
}

}  // namespace

std::string entry_checksum(const CacheEntry& e) {
    std::string text = "gi-cache-entry " + std::to_string(kCacheEntryFormat) + "\n";
    canonical_field(text, "kernel-file", e.kernel_file);
    canonical_field(text, "architecture", std::to_string(e.architecture));
    canonical_field(text, "key", e.key);
    canonical_field(text, "source-sha256", e.source_sha256);
    canonical_field(text, "grammar-version", std::to_string(e.grammar_version));
    for (const RegistrationField& f : kRegistrationFields)
        for (const std::string& value : values_of(e.registration, f)) canonical_field(text, f.name, value);
    canonical_field(text, "genome", e.genome);
    for (const ParameterValue& p : e.parameters) canonical_field(text, "parameter", p.name + "=" + p.value);
    const Provenance& p = e.provenance;
    for (const ProvenanceField& f : kProvenanceFields) canonical_field(text, f.name, value_of(p, f));
    // Only when present, so entries written before it existed keep their checksums.
    if (!p.waiver.empty()) canonical_field(text, "waiver", p.waiver);
    return sha256_hex(text);
}

void seal(CacheEntry& entry) { entry.checksum = entry_checksum(entry); }

bool checksum_matches(const CacheEntry& entry) { return entry.checksum == entry_checksum(entry); }

std::string entry_to_xml(const CacheEntry& e) {
    XMLDocument doc;
    doc.InsertEndChild(doc.NewDeclaration());
    doc.InsertEndChild(doc.NewComment(
        " gi-optimize cache entry: a genome for the kernel below, never source. Written by gi-tool; "
        "a hand edit breaks the checksum and the entry is refused. 'gi-tool cache show' explains it. "));
    XMLElement* root = doc.NewElement("gi-cache-entry");
    root->SetAttribute("format", kCacheEntryFormat);
    doc.InsertEndChild(root);

    XMLElement* kernel = doc.NewElement("kernel");
    kernel->SetAttribute("file", e.kernel_file.c_str());
    kernel->SetAttribute("architecture", architecture_name(e.architecture).c_str());
    root->InsertEndChild(kernel);

    XMLElement* key = add_text(doc, root, "key", e.key);
    key->SetAttribute("grammar-version", e.grammar_version);
    key->SetAttribute("source-sha256", e.source_sha256.c_str());

    XMLElement* reg = doc.NewElement("registration");
    root->InsertEndChild(reg);
    for (const RegistrationField& f : kRegistrationFields)
        for (const std::string& value : values_of(e.registration, f)) add_text(doc, reg, f.name, value);

    // CDATA keeps the rule names' angle brackets readable in diffs.
    XMLElement* genome = doc.NewElement("genome");
    genome->InsertEndChild(doc.NewText(e.genome.c_str()))->ToText()->SetCData(true);
    root->InsertEndChild(genome);

    XMLElement* params = doc.NewElement("parameters");
    root->InsertEndChild(params);
    for (const ParameterValue& p : e.parameters) {
        XMLElement* item = doc.NewElement("parameter");
        item->SetAttribute("name", p.name.c_str());
        item->SetAttribute("value", p.value.c_str());
        params->InsertEndChild(item);
    }

    const Provenance& p = e.provenance;
    XMLElement* prov = doc.NewElement("provenance");
    root->InsertEndChild(prov);
    for (const ProvenanceField& f : kProvenanceFields) {
        add_text(doc, prov, f.name, value_of(p, f));
        // Derived, for people reading the file; not read back.
        if (f.number == &Provenance::variant_ms)
            prov->InsertEndChild(doc.NewComment(
                (" speedup: " + (p.speedup() > 0 ? format_number(p.speedup()) + "x" : std::string("not measured")) + " ").c_str()));
    }
    if (!p.waiver.empty()) add_text(doc, prov, "waiver", p.waiver);

    XMLElement* checksum = add_text(doc, root, "checksum", e.checksum);
    checksum->SetAttribute("algorithm", "sha256");

    tinyxml2::XMLPrinter printer;
    doc.Print(&printer);
    return printer.CStr();
}

CacheEntry parse_cache_entry(const std::string& xml, const std::string& path) {
    XMLDocument doc;
    const Reader r{path};
    if (doc.Parse(xml.c_str(), xml.size()) != tinyxml2::XML_SUCCESS)
        throw Error(located_message(path, doc.ErrorLineNum(), std::string("corrupt cache entry: not well-formed XML: ") + doc.ErrorName(),
                                    "regenerate it with 'gi-tool cache write' or delete it"));
    const XMLElement* root = doc.RootElement();
    if (!root || std::string(root->Name()) != "gi-cache-entry")
        r.fail(root, "the root element must be <gi-cache-entry>");
    r.only_attributes(root, {"format"});
    if (r.attribute(root, "format") != std::to_string(kCacheEntryFormat))
        r.fail(root, "format '" + r.attribute(root, "format") + "' is not the one this gi-tool reads (" +
                         std::to_string(kCacheEntryFormat) + ")");
    r.children(root, {"kernel", "key", "registration", "genome", "parameters", "provenance", "checksum"});

    CacheEntry e;
    const XMLElement* kernel = r.required_child(root, "kernel");
    r.only_attributes(kernel, {"file", "architecture"});
    r.children(kernel, {});
    e.kernel_file = r.attribute(kernel, "file");
    try {
        e.architecture = parse_architecture(r.attribute(kernel, "architecture"), "architecture");
    } catch (const UsageError& error) {
        r.fail(kernel, error.what());
    }

    const XMLElement* key = r.required_child(root, "key");
    r.only_attributes(key, {"grammar-version", "source-sha256"});
    e.key = r.text(key);
    e.source_sha256 = r.attribute(key, "source-sha256");
    if (key->QueryIntAttribute("grammar-version", &e.grammar_version) != tinyxml2::XML_SUCCESS)
        r.fail(key, "grammar-version must be an integer");

    const XMLElement* reg = r.required_child(root, "registration");
    r.only_attributes(reg, {});
    std::set<std::string> names, repeatable;
    for (const RegistrationField& f : kRegistrationFields) {
        names.insert(f.name);
        if (f.list) repeatable.insert(f.name);
    }
    for (const XMLElement* c : r.children(reg, names, repeatable)) {
        r.only_attributes(c, {});
        for (const RegistrationField& f : kRegistrationFields) {
            if (c->Name() != std::string(f.name)) continue;
            if (f.list) (e.registration.*f.list).push_back(r.text(c));
            else e.registration.*f.text = r.text(c);
        }
    }
    if (e.registration.functions.empty()) r.fail(reg, "<registration> names no <function>");

    const XMLElement* genome = r.required_child(root, "genome");
    r.only_attributes(genome, {});
    e.genome = r.text(genome);

    const XMLElement* params = r.required_child(root, "parameters");
    r.only_attributes(params, {});
    for (const XMLElement* c : r.children(params, {"parameter"}, {"parameter"})) {
        r.only_attributes(c, {"name", "value"});
        r.children(c, {});
        e.parameters.push_back({r.attribute(c, "name"), r.attribute(c, "value")});
    }

    const XMLElement* prov = r.required_child(root, "provenance");
    r.only_attributes(prov, {});
    std::set<std::string> allowed{"waiver"};
    for (const ProvenanceField& f : kProvenanceFields) allowed.insert(f.name);
    r.children(prov, allowed);
    Provenance& p = e.provenance;
    if (const XMLElement* c = prov->FirstChildElement("waiver")) {
        r.only_attributes(c, {});
        p.waiver = r.text(c);
        if (p.waiver.empty()) r.fail(c, "<waiver> is empty (it names the option that allowed an unchecked genome)");
    }
    for (const ProvenanceField& f : kProvenanceFields) {
        const XMLElement* c = r.required_child(prov, f.name);
        r.only_attributes(c, {});
        if (f.text) p.*f.text = r.text(c);
        else if (f.number) p.*f.number = r.number(c);
        else p.*f.integer = r.integer(c);
    }

    const XMLElement* checksum = r.required_child(root, "checksum");
    r.only_attributes(checksum, {"algorithm"});
    if (r.attribute(checksum, "algorithm") != "sha256") r.fail(checksum, "checksum algorithm must be sha256");
    e.checksum = r.text(checksum);
    return e;
}

CacheEntry read_cache_entry(const std::filesystem::path& path) {
    // Only a plain file of an entry's size is read: a committed symbolic link may lead anywhere (a
    // link to /dev/urandom made configure read without end).
    std::error_code ec;
    const auto status = std::filesystem::symlink_status(path, ec);
    if (ec || !std::filesystem::exists(status))
        throw Error(path.string() + ": cannot read the cache entry (does the file exist and is it readable?)");
    if (std::filesystem::is_symlink(status))
        throw Error(path.string() + ": the cache entry is a symbolic link; entries must be plain files (replace the link "
                    "with the entry itself)");
    if (!std::filesystem::is_regular_file(status))
        throw Error(path.string() + ": the cache entry is not a plain file (a folder or a device?)");
    const auto size = std::filesystem::file_size(path, ec);
    if (ec || size > kMaxCacheEntryBytes)
        throw Error(path.string() + ": the cache entry has " + std::to_string(size) + " bytes, more than any entry holds (at most " +
                    std::to_string(kMaxCacheEntryBytes) + "); it is not a cache entry");
    return parse_cache_entry(read_input_file(path, kMaxCacheEntryBytes, "cache entry"), path.string());
}

void write_cache_entry(const std::filesystem::path& path, const CacheEntry& entry) {
    // What is written must read back as it is: a field the reader refuses (a control character) or
    // XML changes (a carriage return, read back as a newline) would make an entry that fails its
    // own checksum, which the build then refuses. Refused here, before anything is written.
    const std::string xml = entry_to_xml(entry);
    try {
        if (!(parse_cache_entry(xml, path.string()) == entry))
            throw Error(path.string() + ": a field of the entry would not read back as written");
    } catch (const Error& error) {
        throw Error(std::string("cannot write the cache entry: ") + error.what());
    }
    std::error_code ec;
    if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw Error(path.parent_path().string() + ": cannot create the cache folder: " + ec.message());
    // A temporary of its own per writer, flushed before the rename, removed when anything fails:
    // the committed folder never holds half an entry or a writer's leftovers.
    write_file_atomically(path, xml);
}

}  // namespace gi
