#include "fitness/generation_record.hpp"

#include <cmath>

namespace gi {

bool operator==(const Timing& a, const Timing& b) {
    auto same = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    return same(a.median_ms, b.median_ms) && same(a.spread_ms, b.spread_ms) && a.repetitions == b.repetitions;
}

bool operator==(const GenerationRecord& a, const GenerationRecord& b) {
    return a.index == b.index && a.case_index == b.case_index && a.original == b.original &&
           a.evaluated == b.evaluated && a.distinct == b.distinct && a.compiled == b.compiled &&
           a.accepted == b.accepted && a.best_speedup == b.best_speedup && a.best_genome == b.best_genome &&
           a.individuals == b.individuals;
}

}  // namespace gi
