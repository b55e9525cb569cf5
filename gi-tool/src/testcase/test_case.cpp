#include "testcase/test_case.hpp"

#include <cstring>

namespace gi {

std::string to_string(const Dim3& d) {
    return std::to_string(d.x) + "," + std::to_string(d.y) + "," + std::to_string(d.z);
}

std::string_view to_string(CaseArg::Kind kind) {
    switch (kind) {
        case CaseArg::Kind::Scalar: return "scalar";
        case CaseArg::Kind::Pointer: return "pointer";
        case CaseArg::Kind::Null: return "null";
    }
    return "scalar";
}

std::optional<long long> scalar_as_integer(const CaseArg& arg) {
    if (arg.kind != CaseArg::Kind::Scalar || is_float(arg.element) || arg.element == ElementType::Bytes)
        return std::nullopt;
    const std::size_t size = element_size(arg.element);
    if (arg.value.size() != size) return std::nullopt;
    // Little-endian, as the GPU and its x86/Arm hosts are.
    unsigned long long raw = 0;
    std::memcpy(&raw, arg.value.data(), size);
    switch (arg.element) {
        case ElementType::I8: return static_cast<long long>(static_cast<std::int8_t>(raw));
        case ElementType::I16: return static_cast<long long>(static_cast<std::int16_t>(raw));
        case ElementType::I32: return static_cast<long long>(static_cast<std::int32_t>(raw));
        case ElementType::I64: return static_cast<long long>(raw);
        default: return static_cast<long long>(raw);  // unsigned: zero-extended
    }
}

}  // namespace gi
