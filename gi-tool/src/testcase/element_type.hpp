#pragma once
// What one element of a recorded buffer is, so replay can compare outputs the right way (exact for
// integers, tolerances for floats) and count elements. "bytes" is anything else (structs, half
// types the recorder cannot name): compared byte for byte.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace gi {

enum class ElementType { Bytes, I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64 };

std::string_view to_string(ElementType type);                       // "f32", "u8", "bytes"
std::optional<ElementType> element_type_from_string(std::string_view text);
std::size_t element_size(ElementType type);                         // Bytes -> 1
bool is_float(ElementType type);                                    // F16, BF16, F32, F64

}  // namespace gi
