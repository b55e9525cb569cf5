#include "record/parameter_layout.hpp"

#include <algorithm>

#include "util/error.hpp"

namespace gi {

std::optional<std::vector<ParameterSlot>> layout_from_types(const std::vector<ParameterType>& types) {
    std::vector<ParameterSlot> layout;
    std::size_t end = 0;
    for (const ParameterType& type : types) {
        if (type.size == 0 || type.align == 0) return std::nullopt;
        const std::size_t offset = (end + type.align - 1) / type.align * type.align;
        layout.push_back({offset, type.size});
        end = offset + type.size;
    }
    return layout;
}

std::string layout_problem(const std::vector<ParameterType>& types, const std::vector<ParameterSlot>& layout) {
    if (types.size() != layout.size())
        return "the driver says the kernel takes " + std::to_string(layout.size()) + " parameter(s), its signature lists " +
               std::to_string(types.size());
    for (std::size_t i = 0; i < types.size(); ++i) {
        if (types[i].is_pointer && layout[i].size != sizeof(void*))
            return "parameter " + std::to_string(i) + " is a pointer by its signature, but the driver says it takes " +
                   std::to_string(layout[i].size) + " bytes";
        if (!types[i].is_pointer && types[i].size != 0 && types[i].size != layout[i].size)
            return "parameter " + std::to_string(i) + " takes " + std::to_string(types[i].size) +
                   " bytes by its signature, but the driver says " + std::to_string(layout[i].size);
    }
    return "";
}

std::vector<const void*> argument_values(const std::vector<ParameterSlot>& layout, void* const* params,
                                         void* const* extra) {
    std::vector<const void*> values;
    if (layout.empty()) return values;
    if (params) {
        for (std::size_t i = 0; i < layout.size(); ++i) values.push_back(params[i]);
        return values;
    }
    const unsigned char* buffer = nullptr;
    std::optional<std::size_t> buffer_size;
    for (void* const* e = extra; e && reinterpret_cast<std::uintptr_t>(e[0]) != kLaunchParamEnd; e += 2) {
        const auto key = reinterpret_cast<std::uintptr_t>(e[0]);
        if (key == kLaunchParamBufferPointer) buffer = static_cast<const unsigned char*>(e[1]);
        else if (key == kLaunchParamBufferSize && e[1]) buffer_size = *static_cast<const std::size_t*>(e[1]);
    }
    if (!buffer)
        throw Error("the launch passes neither kernelParams nor a CU_LAUNCH_PARAM_BUFFER_POINTER buffer for the kernel's " +
                    std::to_string(layout.size()) + " parameter(s)");
    std::size_t needed = 0;
    for (const ParameterSlot& slot : layout) needed = std::max(needed, slot.offset + slot.size);
    if (buffer_size && *buffer_size < needed)
        throw Error("the launch's parameter buffer holds " + std::to_string(*buffer_size) + " bytes, but the kernel's " +
                    "parameters take " + std::to_string(needed));
    for (const ParameterSlot& slot : layout) values.push_back(buffer + slot.offset);
    return values;
}

}  // namespace gi
