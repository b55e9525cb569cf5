#pragma once
// 50% truncation selection (seeds 000 8.14.6, 001 3.9): only accepted individuals may be parents;
// they are ranked by error, then by median time, and the best `max_parents` are kept. Ties keep
// population order, so selection is deterministic.
#include <vector>

#include "fitness/scored.hpp"

namespace gi {

// Indexes into `population` of the parents, best first.
std::vector<std::size_t> truncation_select(const std::vector<Scored>& population, std::size_t max_parents);

}  // namespace gi
