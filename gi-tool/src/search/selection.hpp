#pragma once
// 50% truncation selection (seeds 000 8.14.6, 001 3.9): only accepted individuals may be parents;
// they are ranked by error, then by median time, and the best `max_parents` are kept. Ties keep
// population order, so selection is deterministic.
#include <optional>
#include <vector>

#include "fitness/scored.hpp"

namespace gi {

// Indexes into `population` of the parents, best first.
std::vector<std::size_t> truncation_select(const std::vector<Scored>& population, std::size_t max_parents);

// The same parents as truncation_select, in slots: the best `max_parents` of the ranking before the
// sanitizer gate (accepted, or accepted until the gate failed them), each the gate failed replaced
// in place by the next one that passed, or left empty when none is left. Before the gate (nothing
// failed) the slots are truncation_select's order. A generation bred in slots before the gate
// (evolve's guess) and after it differ only in the replaced slots (search/gp_strategy.cpp).
std::vector<std::optional<std::size_t>> parent_slots(const std::vector<Scored>& population, std::size_t max_parents);

}  // namespace gi
