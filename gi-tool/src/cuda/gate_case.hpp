#pragma once
// Which case the search's sanitizer gate checks a would-be parent on (issue 44). The gate's
// long-lived compute-sanitizer sessions keep the case they last checked on open, so the case must
// stay the same from one generation to the next: with the generation's own case (a new one almost
// every generation) each session loaded it again for every check, which was nearly all of the
// gate's time on kernels with large cases (dp_sweep, 440 MB of cases, H200: of the sessions'
// 18.1 s in a 30 s search, 17.5 s went to opening cases).
#include <vector>

#include "cuda/case_set.hpp"

namespace gi {

// The gate's case for a generation judged on training case `case_index`:
// - cases recorded for the gate (--sanitize-cases): those, in turn;
// - otherwise the smallest training case (buffer bytes; the lowest index of equals) of the same
//   kernel instantiation as `case_index` (a template's cases of another instantiation run another
//   kernel), so every generation of one instantiation is gated on one case.
// `training`: the first `training` slots are the training cases. A `case_index` outside them is
// taken as 0.
int choose_gate_case(const std::vector<CaseSlot>& slots, int training, int case_index);

// The slots recorded for the gate alone (--sanitize-cases), in order.
std::vector<int> gate_slots(const std::vector<CaseSlot>& slots);

}  // namespace gi
