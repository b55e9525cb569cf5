#pragma once
// The guarded build the cuda evaluator checks a variant with: its barriers guarded
// (barrier_guard.hpp), then its loops (loop_guard.hpp), behind the loop guard's preamble, which
// holds both guards' functions. A variant that would hang in a loop or deadlock at a barrier
// then ends by itself and costs no worker.
#include <string>

#include "variant/loop_guard.hpp"

namespace gi {

// Pure. `name` is used in the messages of `unguarded`. `barriers` false: loops only (guard_loops,
// the evaluator's --no-barrier-guard).
LoopGuardResult guard_hangs(const std::string& source, const std::string& name = "variant.cu", bool barriers = true);

}  // namespace gi
