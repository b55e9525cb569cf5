#include "testcase/element_type.hpp"

#include <array>
#include <utility>

namespace gi {
namespace {
constexpr std::array<std::pair<ElementType, std::string_view>, 13> kNames{{
    {ElementType::Bytes, "bytes"}, {ElementType::I8, "i8"},   {ElementType::U8, "u8"},
    {ElementType::I16, "i16"},     {ElementType::U16, "u16"}, {ElementType::I32, "i32"},
    {ElementType::U32, "u32"},     {ElementType::I64, "i64"}, {ElementType::U64, "u64"},
    {ElementType::F16, "f16"},     {ElementType::BF16, "bf16"}, {ElementType::F32, "f32"},
    {ElementType::F64, "f64"},
}};
}  // namespace

std::string_view to_string(ElementType type) {
    for (const auto& [t, name] : kNames)
        if (t == type) return name;
    return "bytes";
}

std::optional<ElementType> element_type_from_string(std::string_view text) {
    for (const auto& [t, name] : kNames)
        if (name == text) return t;
    return std::nullopt;
}

std::size_t element_size(ElementType type) {
    switch (type) {
        case ElementType::Bytes:
        case ElementType::I8:
        case ElementType::U8: return 1;
        case ElementType::I16:
        case ElementType::U16:
        case ElementType::F16:
        case ElementType::BF16: return 2;
        case ElementType::I32:
        case ElementType::U32:
        case ElementType::F32: return 4;
        case ElementType::I64:
        case ElementType::U64:
        case ElementType::F64: return 8;
    }
    return 1;
}

bool is_float(ElementType type) {
    return type == ElementType::F16 || type == ElementType::BF16 || type == ElementType::F32 ||
           type == ElementType::F64;
}

}  // namespace gi
