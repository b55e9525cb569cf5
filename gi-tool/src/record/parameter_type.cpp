#include "record/parameter_type.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

namespace gi {
namespace {

// Words that qualify a type without changing what its bytes are.
const std::set<std::string_view> kQualifiers = {"const",  "volatile", "__restrict__", "__restrict", "restrict",
                                                "struct", "class",    "union",        "enum",       "typename",
                                                "__grid_constant__"};
const std::set<std::string_view> kBuiltinWords = {"void",  "bool",   "char",    "short",    "int",      "long",
                                                  "signed", "unsigned", "float", "double",  "wchar_t",  "char8_t",
                                                  "char16_t", "char32_t", "__int128"};

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }

// The words of a type: names (qualified, with their template arguments: "ns::A<int, 2>", and the
// demangler's "(anonymous namespace)::P"), '*', and the brackets of a function pointer or an array.
std::vector<std::string> type_words(std::string_view text) {
    constexpr std::string_view kAnonymous = "(anonymous namespace)";
    auto anonymous_at = [&](std::size_t i) { return text.compare(i, kAnonymous.size(), kAnonymous) == 0; };
    std::vector<std::string> words;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (std::isspace(static_cast<unsigned char>(c))) {
            ++i;
        } else if (identifier_char(c) || anonymous_at(i)) {
            std::string word;
            while (i < text.size()) {
                if (anonymous_at(i)) {
                    word += kAnonymous;
                    i += kAnonymous.size();
                    continue;
                }
                if (identifier_char(text[i])) {
                    word += text[i++];
                    continue;
                }
                // Template arguments, after which the name may go on ("A<int>::B").
                std::size_t next = i;
                while (next < text.size() && std::isspace(static_cast<unsigned char>(text[next]))) ++next;
                if (next >= text.size() || text[next] != '<') break;
                int depth = 0;
                for (i = next; i < text.size(); ++i) {
                    word += text[i];
                    if (text[i] == '<') ++depth;
                    else if (text[i] == '>' && --depth == 0) break;
                }
                ++i;
                if (i + 1 >= text.size() || text[i] != ':' || text[i + 1] != ':') break;
            }
            words.push_back(std::move(word));
        } else if (c == '*' || c == '(' || c == ')' || c == '[' || c == ']') {
            words.emplace_back(1, c);
            ++i;
        } else {
            ++i;
        }
    }
    return words;
}

// A number type, as <gi/launch.hpp>'s element_of names it.
struct Scalar {
    ElementType element = ElementType::Bytes;
    std::size_t size = 0;
    bool maybe_object = false;
    bool is_void = false;
};

// The builtin type the words spell ("unsigned long long int", "signed char"); x86-64 Linux sizes.
Scalar builtin(const std::vector<std::string>& words) {
    auto has = [&](std::string_view w) { return std::find(words.begin(), words.end(), w) != words.end(); };
    const bool is_unsigned = has("unsigned");
    const long longs = std::count(words.begin(), words.end(), "long");
    if (has("void")) return {ElementType::Bytes, 0, false, true};
    if (has("bool")) return {ElementType::U8, 1};
    if (has("char")) return {is_unsigned ? ElementType::U8 : ElementType::I8, 1};  // plain char is signed here
    if (has("wchar_t")) return {ElementType::I32, 4};
    if (has("char8_t")) return {ElementType::U8, 1};
    if (has("char16_t")) return {ElementType::U16, 2};
    if (has("char32_t")) return {ElementType::U32, 4};
    if (has("float")) return {ElementType::F32, 4};
    if (has("double")) return longs > 0 ? Scalar{ElementType::Bytes, 16} : Scalar{ElementType::F64, 8};
    if (has("__int128")) return {ElementType::Bytes, 16};
    if (has("short")) return {is_unsigned ? ElementType::U16 : ElementType::I16, 2};
    if (longs > 0) return {is_unsigned ? ElementType::U64 : ElementType::I64, 8, is_unsigned && longs == 2};
    return {is_unsigned ? ElementType::U32 : ElementType::I32, 4};
}

// Names the standard library, glibc and CUDA define for number types.
std::optional<std::vector<std::string>> typedef_words(std::string_view name) {
    static const std::array<std::pair<std::string_view, std::string_view>, 24> kTypedefs = {{
        {"size_t", "unsigned long"},        {"ssize_t", "long"},
        {"ptrdiff_t", "long"},              {"intptr_t", "long"},
        {"uintptr_t", "unsigned long"},     {"int8_t", "signed char"},
        {"uint8_t", "unsigned char"},       {"int16_t", "short"},
        {"uint16_t", "unsigned short"},     {"int32_t", "int"},
        {"uint32_t", "unsigned int"},       {"int64_t", "long"},
        {"uint64_t", "unsigned long"},      {"uint", "unsigned int"},
        {"ushort", "unsigned short"},       {"ulong", "unsigned long"},
        {"uchar", "unsigned char"},         {"cudaTextureObject_t", "unsigned long long"},
        {"cudaSurfaceObject_t", "unsigned long long"}, {"CUtexObject", "unsigned long long"},
        {"CUsurfObject", "unsigned long long"},        {"CUdeviceptr", "unsigned long long"},
        {"half", "__half"},                 {"nv_bfloat16", "__nv_bfloat16"},
    }};
    for (const auto& [alias, spelled] : kTypedefs)
        if (name == alias) return type_words(spelled);
    return std::nullopt;
}

// CUDA's vector types: the element <gi/launch.hpp> gives a buffer of them (only those it lists;
// the others are bytes, like any struct), their size and alignment.
struct Vector {
    ElementType element = ElementType::Bytes;
    std::size_t size = 0, align = 0;
};

std::optional<Vector> vector_type(std::string_view name) {
    struct Family {
        std::string_view prefix;
        std::size_t component;
        ElementType element;
        std::string_view counts;  // the component counts element_of names: the others are bytes
    };
    static const std::array<Family, 12> kFamilies = {{
        {"char", 1, ElementType::Bytes, ""},        {"uchar", 1, ElementType::U8, "1234"},
        {"short", 2, ElementType::I16, "24"},       {"ushort", 2, ElementType::U16, "24"},
        {"int", 4, ElementType::I32, "1234"},       {"uint", 4, ElementType::U32, "1234"},
        {"long", 8, ElementType::Bytes, ""},        {"ulong", 8, ElementType::Bytes, ""},
        {"longlong", 8, ElementType::Bytes, ""},    {"ulonglong", 8, ElementType::Bytes, ""},
        {"float", 4, ElementType::F32, "1234"},     {"double", 8, ElementType::F64, "123"},
    }};
    if (name.size() < 2) return std::nullopt;
    const char count = name.back();
    if (count < '1' || count > '4') return std::nullopt;
    const std::string_view prefix = name.substr(0, name.size() - 1);
    for (const Family& f : kFamilies) {
        if (prefix != f.prefix) continue;
        const std::size_t n = static_cast<std::size_t>(count - '0');
        Vector v;
        v.element = f.counts.find(count) != std::string_view::npos ? f.element : ElementType::Bytes;
        v.size = n * f.component;
        v.align = n == 3 ? f.component : std::min<std::size_t>(v.size, 16);
        return v;
    }
    return std::nullopt;
}

// What the base type (the words before the first '*') is.
struct Base {
    Scalar scalar;
    bool is_class = false;
    std::size_t align = 0;
};

Base base_type(std::vector<std::string> words) {
    for (int resolved = 0; resolved < 2; ++resolved) {
        const bool builtin_words = std::any_of(words.begin(), words.end(), [](const std::string& w) { return kBuiltinWords.count(w) > 0; });
        if (builtin_words) {
            Base b;
            b.scalar = builtin(words);
            b.align = b.scalar.size;
            return b;
        }
        if (words.size() != 1) break;
        std::string_view name = words[0];
        if (name.rfind("::", 0) == 0) name.remove_prefix(2);
        if (name.rfind("std::", 0) == 0) name.remove_prefix(5);
        if (const auto v = vector_type(name)) {
            Base b;
            b.scalar = {v->element, v->size};
            b.is_class = true;
            b.align = v->align;
            return b;
        }
        const auto spelled = typedef_words(name);
        if (!spelled) break;
        words = *spelled;
    }
    Base b;
    b.is_class = true;
    return b;
}

}  // namespace

ParameterType parameter_type(std::string_view text) {
    std::vector<std::string> words = type_words(text);
    ParameterType type;
    // A function pointer or a pointer to an array: a pointer whose buffer holds no data we can name.
    if (std::find(words.begin(), words.end(), "(") != words.end()) {
        type.is_pointer = true;
        type.size = type.align = 8;
        return type;
    }
    std::vector<std::string> base_words;
    std::vector<bool> const_before_star;  // per level: `const` right before that level's '*'
    bool const_now = false;
    int depth = 0;
    for (const std::string& w : words) {
        if (w == "*") {
            const_before_star.push_back(const_now);
            const_now = false;
            ++depth;
        } else if (w == "const") {
            const_now = true;
        } else if (!kQualifiers.count(w) && w != "[" && w != "]" && depth == 0) {
            base_words.push_back(w);
        }
    }
    const Base base = base_type(base_words);
    if (depth == 0) {
        type.element = base.scalar.element;
        type.maybe_object = base.scalar.maybe_object;
        type.is_class = base.is_class;
        type.size = base.scalar.size;
        type.align = base.align;
        return type;
    }
    type.is_pointer = true;
    type.size = type.align = 8;
    type.pointee_const = const_before_star.back();
    if (depth >= 2) {
        type.pointee_holds = ParameterHolds::Pointers;
        return type;
    }
    type.is_class = base.is_class;
    if (base.scalar.is_void) return type;
    type.element = base.scalar.element;
    if (base.is_class && base.scalar.element == ElementType::Bytes) type.pointee_holds = ParameterHolds::MaybePointers;
    return type;
}

ParameterHolds value_holds(const ParameterType& type, std::size_t size) {
    return !type.is_pointer && type.is_class && type.element == ElementType::Bytes && size >= 8
               ? ParameterHolds::MaybePointers
               : ParameterHolds::Data;
}

std::optional<std::vector<std::string>> demangled_parameters(std::string_view demangled) {
    while (!demangled.empty() && std::isspace(static_cast<unsigned char>(demangled.back()))) demangled.remove_suffix(1);
    if (demangled.empty() || demangled.back() != ')') return std::nullopt;
    // The parameter list is the last bracketed group: "(anonymous namespace)::k(float*)" has another.
    std::size_t open = demangled.size() - 1;
    int depth = 0;
    for (std::size_t i = demangled.size(); i-- > 0;) {
        if (demangled[i] == ')') ++depth;
        else if (demangled[i] == '(' && --depth == 0) {
            open = i;
            break;
        }
    }
    if (depth != 0 || open == 0) return std::nullopt;
    const std::string_view inside = demangled.substr(open + 1, demangled.size() - open - 2);
    std::vector<std::string> parameters;
    std::string current;
    int nesting = 0;
    auto finish = [&] {
        const std::size_t first = current.find_first_not_of(" \t");
        const std::size_t last = current.find_last_not_of(" \t");
        parameters.push_back(first == std::string::npos ? "" : current.substr(first, last - first + 1));
        current.clear();
    };
    for (const char c : inside) {
        if (c == '(' || c == '<' || c == '[') ++nesting;
        else if (c == ')' || c == '>' || c == ']') --nesting;
        if (c == ',' && nesting == 0) finish();
        else current += c;
    }
    finish();
    if (parameters.size() == 1 && (parameters[0].empty() || parameters[0] == "void")) parameters.clear();
    return parameters;
}

}  // namespace gi
