#include "cuda/binary_identity.hpp"

#include <cstdint>

#include "util/hash.hpp"

namespace gi {
namespace {

// Length first, so no two different (module, guarded) splits of the same bytes hash alike.
void add_part(Sha256& hash, std::string_view bytes) {
    const std::uint64_t size = bytes.size();
    hash.update(&size, sizeof size);
    hash.update(bytes);
}

void add_dims(Sha256& hash, const Dim3& d) {
    const std::uint32_t values[3] = {d.x, d.y, d.z};
    hash.update(values, sizeof values);
}

}  // namespace

std::string binary_identity(std::string_view module, std::string_view guarded_module, const ResolvedGeometry& geometry) {
    Sha256 hash;
    add_part(hash, module);
    add_part(hash, guarded_module);
    add_dims(hash, geometry.grid);
    add_dims(hash, geometry.block);
    return hash.hex_digest();
}

}  // namespace gi
