#include "compile/module_variables.hpp"

#include <elf.h>

#include <cxxabi.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

#include "util/error.hpp"

namespace gi {
namespace {

template <typename T>
T read_at(std::string_view image, std::uint64_t offset, const char* what) {
    if (offset > image.size() || image.size() - offset < sizeof(T))
        throw Error(std::string("the compiled module is damaged: its ") + what + " lies outside the image");
    T value;
    std::memcpy(&value, image.data() + offset, sizeof(T));
    return value;
}

std::string_view c_string_at(std::string_view table, std::uint64_t offset) {
    if (offset >= table.size()) return {};
    const std::string_view rest = table.substr(offset);
    return rest.substr(0, rest.find('\0'));
}

constexpr unsigned kSttCudaObject = STT_LOPROC;

// The compiler's own objects: printf format strings ($str), the math library's tables
// (__cudart_i2opi_f for sinf's argument reduction) and other reserved names.
bool compiler_object(std::string_view name) {
    return name.empty() || name.front() == '$' || name.front() == '.' || name.rfind("__cudart", 0) == 0 ||
           name.rfind("__nv", 0) == 0;
}

}  // namespace

std::vector<ModuleVariable> module_variables(std::string_view cubin) {
    if (cubin.size() < sizeof(Elf64_Ehdr) || std::memcmp(cubin.data(), ELFMAG, SELFMAG) != 0)
        throw Error("the compiled module is not an ELF image (a cubin); its variables cannot be listed");
    const auto header = read_at<Elf64_Ehdr>(cubin, 0, "header");
    if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_ident[EI_DATA] != ELFDATA2LSB)
        throw Error("the compiled module is not a 64-bit little-endian ELF image");
    if (header.e_shentsize != sizeof(Elf64_Shdr))
        throw Error("the compiled module is damaged: unexpected section header size");
    std::vector<Elf64_Shdr> sections;
    for (unsigned i = 0; i < header.e_shnum; ++i)
        sections.push_back(read_at<Elf64_Shdr>(cubin, header.e_shoff + std::uint64_t{i} * sizeof(Elf64_Shdr), "section table"));
    auto section_bytes = [&](const Elf64_Shdr& s) -> std::string_view {
        if (s.sh_type == SHT_NOBITS) return {};
        if (s.sh_offset > cubin.size() || cubin.size() - s.sh_offset < s.sh_size)
            throw Error("the compiled module is damaged: a section lies outside the image");
        return cubin.substr(s.sh_offset, s.sh_size);
    };
    if (header.e_shstrndx >= sections.size()) throw Error("the compiled module is damaged: no section name table");
    const std::string_view section_names = section_bytes(sections[header.e_shstrndx]);

    std::vector<ModuleVariable> out;
    for (const Elf64_Shdr& table : sections) {
        if (table.sh_type != SHT_SYMTAB) continue;
        if (table.sh_link >= sections.size() || table.sh_entsize != sizeof(Elf64_Sym))
            throw Error("the compiled module is damaged: a malformed symbol table");
        const std::string_view symbols = section_bytes(table);
        const std::string_view names = section_bytes(sections[table.sh_link]);
        for (std::uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols.size(); at += sizeof(Elf64_Sym)) {
            const auto symbol = read_at<Elf64_Sym>(symbols, at, "symbol table");
            // Relocatable device code (-rdc=true) types its variables STT_CUDA_OBJECT (STT_LOPROC, 13),
            // linked code STT_OBJECT: a separable target's __constant__ data went unlisted, so unrecorded.
            const unsigned type = ELF64_ST_TYPE(symbol.st_info);
            if ((type != STT_OBJECT && type != kSttCudaObject) || symbol.st_shndx == SHN_UNDEF ||
                symbol.st_shndx >= sections.size())
                continue;
            const std::string_view name = c_string_at(names, symbol.st_name);
            if (compiler_object(name)) continue;
            const std::string_view section = c_string_at(section_names, sections[symbol.st_shndx].sh_name);
            ModuleVariable v;
            if (section.rfind(".nv.constant", 0) == 0) v.constant = true;
            else if (section.rfind(".nv.global", 0) != 0) continue;  // shared memory and the like: no state
            v.name = std::string(name);
            v.size = symbol.st_size;
            out.push_back(std::move(v));
        }
    }
    return out;
}

std::string module_variables_text(const std::vector<ModuleVariable>& variables) {
    std::string out;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on the one-expression form,
    // and the recorder's sources compile in users' builds.
    for (const ModuleVariable& v : variables) {
        if (!out.empty()) out += ',';
        out.append(v.constant ? "const:" : "global:").append(v.name);
    }
    return out;
}

std::vector<ModuleVariable> parse_module_variables_text(std::string_view text, const std::string& where) {
    std::vector<ModuleVariable> out;
    while (!text.empty()) {
        const std::size_t comma = text.find(',');
        const std::string_view item = text.substr(0, comma);
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
        if (item.empty()) continue;
        const std::size_t colon = item.find(':');
        const std::string_view space = item.substr(0, colon);
        const std::string_view name = colon == std::string_view::npos ? std::string_view() : item.substr(colon + 1);
        if ((space != "const" && space != "global") || name.empty() ||
            name.find_first_of(" \t\n:") != std::string_view::npos)
            throw UsageError(where + ": '" + std::string(item) + "' is not const:NAME or global:NAME");
        out.push_back({std::string(name), space == "const", 0});
    }
    return out;
}

std::string declared_identifier(std::string_view name) {
    if (name.rfind("_Z", 0) != 0) return std::string(name);
    // The C++ runtime's demangler reads every mangling; the identifier is the last component of
    // the qualified name outside template arguments ("ns::Tile<8>::size" -> "size").
    int status = 0;
    const std::string mangled(name);
    char* text = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
    if (status != 0 || text == nullptr) {
        std::free(text);
        return "";
    }
    const std::string qualified(text);
    std::free(text);
    std::string last;
    int depth = 0;
    for (std::size_t i = 0; i < qualified.size(); ++i) {
        const char c = qualified[i];
        if (c == '<' || c == '(') ++depth;
        else if (c == '>' || c == ')') --depth;
        else if (depth == 0 && c == ':' && i + 1 < qualified.size() && qualified[i + 1] == ':') {
            last.clear();
            ++i;
        } else if (depth == 0) {
            last += c;
        }
    }
    return last;
}

namespace {

// Whether `text` declares `identifier` with a CUDA memory space: the identifier as a whole word,
// and __constant__, __device__ or __managed__ earlier in the same declaration (back to the last
// ';', '{', '}', '(' or ')': a function's parameter of the same name is not a variable).
bool declares_variable(const std::string& text, const std::string& identifier) {
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t at = text.find(identifier); at != std::string::npos; at = text.find(identifier, at + 1)) {
        if ((at > 0 && word_char(text[at - 1])) ||
            (at + identifier.size() < text.size() && word_char(text[at + identifier.size()])))
            continue;
        const std::size_t start = text.find_last_of(";{}()", at);
        const std::string_view declaration(text.data() + (start == std::string::npos ? 0 : start + 1),
                                           at - (start == std::string::npos ? 0 : start + 1));
        for (const char* space : {"__constant__", "__device__", "__managed__"})
            if (declaration.find(space) != std::string_view::npos) return true;
    }
    return false;
}

}  // namespace

std::vector<ModuleVariable> project_variables(const std::vector<ModuleVariable>& all,
                                              const std::vector<std::string>& project_texts) {
    std::vector<ModuleVariable> out;
    for (const ModuleVariable& v : all) {
        const std::string identifier = declared_identifier(v.name);
        if (identifier.empty()) continue;
        for (const std::string& text : project_texts)
            if (declares_variable(text, identifier)) {
                out.push_back(v);
                break;
            }
    }
    return out;
}

bool file_private_name(std::string_view name) {
    return name.find("_INTERNAL_") != std::string_view::npos || name.find("_GLOBAL__N_") != std::string_view::npos;
}

std::string guarded_variable_name(const std::string& plain, const std::vector<ModuleVariable>& in_module,
                                  std::string_view guarded_namespace) {
    if (file_private_name(plain)) return "";
    // What follows the namespace in the copy's nested name: "1cE" for "c", "2ns1cE" for "_ZN2ns1cE".
    std::string tail;
    if (plain.rfind("_ZN", 0) == 0) tail = plain.substr(3);
    else if (plain.rfind("_Z", 0) != 0) tail = std::to_string(plain.size()) + plain + "E";
    else return "";
    const std::string nested = std::to_string(guarded_namespace.size()) + std::string(guarded_namespace) + tail;
    for (const ModuleVariable& v : in_module) {
        if (v.name == "_ZN" + nested) return v.name;
        // A file-static variable: "_ZN" <length-prefixed private component> <nested>.
        if (v.name.rfind("_ZN", 0) != 0 || !file_private_name(v.name)) continue;
        std::size_t at = 3, length = 0;
        while (at < v.name.size() && v.name[at] >= '0' && v.name[at] <= '9') length = length * 10 + static_cast<std::size_t>(v.name[at++] - '0');
        if (at == 3 || at + length > v.name.size()) continue;
        if (v.name.compare(at + length, std::string::npos, nested) == 0) return v.name;
    }
    return "";
}

}  // namespace gi
