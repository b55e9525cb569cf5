#pragma once
// The guarded build the cuda evaluator checks a variant with: its shared-array accesses checked
// (shared_guard.hpp), its barriers guarded (barrier_guard.hpp), then its loops (loop_guard.hpp),
// behind the loop guard's preamble, which holds every guard's functions. A variant that would hang
// in a loop, deadlock at a barrier or fault on a shared array then ends by itself and costs no
// worker.
#include <string>

#include "variant/loop_guard.hpp"

namespace gi {

// Which guards besides the loop guard (the evaluator's --no-barrier-guard, --no-shared-guard).
struct HangGuards {
    bool barriers = true;
    bool shared_arrays = true;
};

// Pure. `name` is used in the messages of `unguarded`.
LoopGuardResult guard_hangs(const std::string& source, const std::string& name = "variant.cu", HangGuards guards = {});

}  // namespace gi
