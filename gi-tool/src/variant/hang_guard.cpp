#include "variant/hang_guard.hpp"

#include "variant/barrier_guard.hpp"

namespace gi {

LoopGuardResult guard_hangs(const std::string& source, const std::string& name, bool barriers_too) {
    if (!barriers_too) return guard_loops(source, name);
    const BarrierGuardResult barriers = guard_barriers(source, name);
    LoopGuardResult result = guard_loops(barriers.source, name);
    result.barriers = barriers.barriers;
    return result;
}

}  // namespace gi
