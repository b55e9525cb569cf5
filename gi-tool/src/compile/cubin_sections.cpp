#include "compile/cubin_sections.hpp"

#include <cstdint>
#include <cstring>
#include <set>

#include "util/error.hpp"

namespace gi {
namespace {

template <typename T>
T read_at(const std::string& image, std::uint64_t offset) {
    if (offset > image.size() || image.size() - offset < sizeof(T)) throw Error("the cubin is truncated (an ELF header field lies past its end)");
    T value;
    std::memcpy(&value, image.data() + offset, sizeof(T));
    return value;
}

// Tables and notes that differ between two builds of the same code: the symbol and string tables
// list every kernel of the module, the tool-kit note names the compiler and file.
const std::set<std::string> kNotCompared = {"",        ".shstrtab", ".strtab", ".symtab", ".note.nv.tkinfo", ".nv.info",
                                            ".nv.callgraph", ".nv.compat", ".note.nv.cuinfo", ".debug_frame",
                                            ".rela.debug_frame", ".nv.prototype", ".nv.rel.action"};

}  // namespace

std::map<std::string, std::string> cubin_sections(const std::string& image) {
    if (image.size() < 64 || image.compare(0, 4, "\x7f" "ELF") != 0 || image[4] != 2 || image[5] != 1)
        throw Error("the compiled module is not a little-endian ELF64 cubin");
    const auto section_table = read_at<std::uint64_t>(image, 0x28);
    const auto entry_size = read_at<std::uint16_t>(image, 0x3A);
    const auto count = read_at<std::uint16_t>(image, 0x3C);
    const auto names_index = read_at<std::uint16_t>(image, 0x3E);
    if (entry_size < 64 || names_index >= count) throw Error("the cubin's section table is malformed");
    auto header = [&](std::uint64_t i) { return section_table + i * entry_size; };
    const auto names_offset = read_at<std::uint64_t>(image, header(names_index) + 0x18);
    std::map<std::string, std::string> sections;
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto name_at = names_offset + read_at<std::uint32_t>(image, header(i));
        const auto type = read_at<std::uint32_t>(image, header(i) + 4);
        const auto offset = read_at<std::uint64_t>(image, header(i) + 0x18);
        const auto size = read_at<std::uint64_t>(image, header(i) + 0x20);
        if (name_at >= image.size()) throw Error("a cubin section name lies outside the image");
        const std::string name(image.c_str() + name_at, strnlen(image.c_str() + name_at, image.size() - name_at));
        const bool has_bytes = type != 8;  // SHT_NOBITS: shared memory and the like
        if (has_bytes && (offset > image.size() || image.size() - offset < size)) throw Error("cubin section " + name + " lies outside the image");
        // A section without bytes (shared memory) is compared by its size.
        sections[name] = has_bytes ? image.substr(offset, size) : "size " + std::to_string(size);
    }
    return sections;
}

namespace {

// A relocation section with each entry's symbol named instead of numbered: two builds that list
// different kernels number the same symbol differently.
std::string named_relocations(const std::string& image, const std::string& rela) {
    const auto sections = cubin_sections(image);
    const std::string& symtab = sections.count(".symtab") ? sections.at(".symtab") : std::string();
    const std::string& strtab = sections.count(".strtab") ? sections.at(".strtab") : std::string();
    std::string out;
    for (std::size_t at = 0; at + 24 <= rela.size(); at += 24) {
        const auto offset = read_at<std::uint64_t>(rela, at);
        const auto info = read_at<std::uint64_t>(rela, at + 8);
        const auto addend = read_at<std::int64_t>(rela, at + 16);
        const std::uint64_t symbol = info >> 32;
        std::string name = "#" + std::to_string(symbol);
        if ((symbol + 1) * 24 <= symtab.size()) {
            const auto name_at = read_at<std::uint32_t>(symtab, symbol * 24);
            if (name_at < strtab.size()) name = strtab.c_str() + name_at;
        }
        out += std::to_string(offset) + " " + std::to_string(info & 0xffffffff) + " " + name + " " + std::to_string(addend) + "\n";
    }
    return out;
}

}  // namespace

bool same_device_code(const std::string& part, const std::string& whole) {
    const auto a = cubin_sections(part), b = cubin_sections(whole);
    for (const auto& [name, bytes] : a) {
        // A kernel's attribute notes hold symbol numbers, which differ with the module's other
        // kernels; its code, constants, shared memory and relocations are compared.
        if (kNotCompared.count(name) || name.rfind(".nv.info.", 0) == 0) continue;
        const auto it = b.find(name);
        if (it == b.end()) return false;
        if (name.rfind(".rela", 0) == 0) {
            if (named_relocations(part, bytes) != named_relocations(whole, it->second)) return false;
        } else if (it->second != bytes) {
            return false;
        }
    }
    return true;
}

}  // namespace gi
