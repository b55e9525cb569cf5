#pragma once
// `--strategy nsga2`: GEVO's multi-objective search (seed 002 section III, Algorithm 1) over
// (run time relative to the original, error), with --max-error as the error budget (0: exact).
// Each generation the evaluated individuals (last generation's elites and offspring) are ranked by
// non-dominated sorting and crowding distance, the best `population` kept; the best quarter of
// those go on unchanged as elites (and are measured again on the new case); `population`
// offspring come from binary tournaments, paired for one-point messy crossover of their edit lists
// (uniform on gene settings) with probability 0.8, then each mutated with probability 0.3. A child
// equal to its parent or to a genome already in the generation is mutated until it is new, so no
// evaluation is spent on a copy. The initial population is `population` unique genomes of three
// random mutations each, as GEVO's.
#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "history/birth.hpp"
#include "search/nsga2_sort.hpp"
#include "search/strategy.hpp"

namespace gi {

struct Nsga2Options {
    double cross_rate = 0.8;   // GEVO: 80% of individuals are selected for crossover
    double mutate_rate = 0.3;  // GEVO: every individual has a 30% chance of one mutation
    int initial_mutations = 3;
};

// The objectives of an evaluated individual (time relative to the original on its case).
Objectives objectives_of(const Scored& scored, double max_error);

// Members of the non-dominated front of `population` when the error budget is ignored (the
// trade-off a user chooses from), best time first. Failures are never members.
std::vector<std::size_t> pareto_front(const std::vector<Objectives>& population);

class Nsga2Strategy : public Strategy {
public:
    Nsga2Strategy(StrategyContext context, Nsga2Options options = {});
    std::string name() const override { return "nsga2"; }
    std::vector<Genome> initial_population(Rng& rng) override;
    std::vector<Genome> next_population(const ScoredBatch& evaluated, Rng& rng) override;
    // The elites come on top of `population` after the first generation.
    std::size_t population_size(int generation) const override {
        return generation == 0 ? context_.population : context_.population + elite_count();
    }
    std::size_t elite_count() const { return std::max<std::size_t>(1, context_.population / 4); }
    std::vector<BirthInfo> births() const override { return births_; }
    // The births of the population to be evaluated next, so a resumed run still records them:
    // one line per genome, the birth and its parents' genome texts separated by tabs.
    std::string save_state() const override;
    void restore_state(const std::string& state) override;

private:
    // A genome not yet in `taken`, starting from `child`: mutated until new (or gives up after
    // a bounded number of tries and returns the last mutant).
    Genome make_new(Genome child, bool must_mutate, std::set<std::string>& taken, Rng& rng, bool& mutated);

    StrategyContext context_;
    Nsga2Options options_;
    std::vector<BirthInfo> births_;
};

}  // namespace gi
