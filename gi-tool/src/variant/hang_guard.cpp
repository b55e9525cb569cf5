#include "variant/hang_guard.hpp"

#include "variant/barrier_guard.hpp"
#include "variant/shared_guard.hpp"

namespace gi {

LoopGuardResult guard_hangs(const std::string& source, const std::string& name, HangGuards guards) {
    // Shared accesses first: the barrier guard's and loop guard's insertions add no subscripts.
    const SharedGuardResult shared = guards.shared_arrays ? guard_shared_arrays(source, name) : SharedGuardResult{source, 0, {}};
    const BarrierGuardResult barriers = guards.barriers ? guard_barriers(shared.source, name) : BarrierGuardResult{shared.source, 0};
    LoopGuardResult result = guard_loops(barriers.source, name);
    result.barriers = barriers.barriers;
    result.shared_accesses = shared.accesses;
    return result;
}

}  // namespace gi
