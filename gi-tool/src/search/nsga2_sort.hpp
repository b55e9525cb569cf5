#pragma once
// The pieces of NSGA-II (Deb et al.) that GEVO's multi-objective search uses (seed 002 section III):
// fast non-dominated sort, crowding distance, the crowded comparison, binary tournament selection,
// and GEVO's one-point messy crossover of edit lists. Pure functions over plain values.
//
// Objectives are minimised: run time relative to the original kernel on the same case, and error.
// The error budget is a constraint (Deb's constraint domination): a variant within --max-error
// beats any variant beyond it, and among variants beyond it the smaller excess wins; a variant
// that did not run at all (compile error, crash...) is beyond every budget.
#include <cstddef>
#include <limits>
#include <utility>
#include <vector>

#include "genome/genome.hpp"
#include "util/rng.hpp"

namespace gi {

struct Objectives {
    double time = std::numeric_limits<double>::infinity();   // variant / original on the same case
    double error = std::numeric_limits<double>::infinity();
    double violation = std::numeric_limits<double>::infinity();  // 0 within the error budget
    bool feasible() const { return violation == 0; }
};

// Objectives of a finished evaluation: `ran` false for any failure status.
Objectives make_objectives(bool ran, double relative_time, double error, double max_error);

// True when `a` constraint-dominates `b`.
bool dominates(const Objectives& a, const Objectives& b);

// Fronts of indexes into `points`, the non-dominated front first; indexes ascend within a front.
std::vector<std::vector<std::size_t>> non_dominated_sort(const std::vector<Objectives>& points);

// Crowding distance of each member of `front` (same order): infinite at both ends of each
// objective, otherwise the sum over objectives of the normalised gap between its neighbours.
std::vector<double> crowding_distance(const std::vector<Objectives>& points, const std::vector<std::size_t>& front);

struct CrowdedRank {
    int front = 0;
    double crowding = 0;
};

// Front number and crowding distance of every point.
std::vector<CrowdedRank> crowded_ranks(const std::vector<Objectives>& points);

// Deb's crowded comparison: lower front wins, then larger crowding distance.
bool crowded_better(const CrowdedRank& a, const CrowdedRank& b);

// Indexes of the best `count` points by crowded comparison, best first (ties: lower index first).
std::vector<std::size_t> select_best(const std::vector<CrowdedRank>& ranks, std::size_t count);

// Binary tournament: two distinct contestants drawn uniformly (one when there is only one), the
// crowded-better wins (the first drawn on a tie).
std::size_t binary_tournament(const std::vector<CrowdedRank>& ranks, Rng& rng);

// GEVO's one-point messy crossover: both parents' edits in one sequence, shuffled, cut at a random
// point into two children (each child's duplicate edits after the first removed).
std::pair<std::vector<Edit>, std::vector<Edit>> messy_crossover(const std::vector<Edit>& a, const std::vector<Edit>& b,
                                                                Rng& rng);

}  // namespace gi
