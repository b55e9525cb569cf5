#include "cuda/gate_case.hpp"

#include <algorithm>

namespace gi {

std::vector<int> gate_slots(const std::vector<CaseSlot>& slots) {
    std::vector<int> gate;
    for (int index = 0; index < static_cast<int>(slots.size()); ++index)
        if (slots[index].gate) gate.push_back(index);
    return gate;
}

int choose_gate_case(const std::vector<CaseSlot>& slots, int training, int case_index) {
    const std::vector<int> gate = gate_slots(slots);
    if (!gate.empty()) return gate[static_cast<std::size_t>(std::max(case_index, 0)) % gate.size()];

    training = std::min(training, static_cast<int>(slots.size()));
    if (training <= 0) return case_index;
    if (case_index < 0 || case_index >= training) case_index = 0;
    const std::string& kernel = slots[case_index].kernel;
    int best = case_index;
    for (int index = 0; index < training; ++index) {
        if (slots[index].kernel != kernel) continue;
        if (slots[index].bytes < slots[best].bytes || (slots[index].bytes == slots[best].bytes && index < best)) best = index;
    }
    return best;
}

}  // namespace gi
