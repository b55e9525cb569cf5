#pragma once
// Langdon's generational GP (seeds 000 8.14, 001 3.3): panmictic, non-elitist. Each generation the
// accepted half (at most population/2, see selection.hpp) become parents; each parent makes one
// mutant and one crossover child with another parent; missing children are fresh unique single
// mutants of the starting genome, as at initialisation.
#include "history/birth.hpp"
#include "search/strategy.hpp"

namespace gi {

// The next generation from an evaluated one; children in the order parent 1 mutant, parent 1
// crossover child, parent 2 mutant, ..., then the fresh mutants. The parents are parent_slots'
// (selection.hpp); breeding takes one draw of `rng` and each slot's children come from a stream of
// their own (Rng::stream), so a parent the gate replaced changes only the children it took part in.
// When `births` is given it receives each child's birth and parents, in the same order.
std::vector<Genome> gp_next_population(const std::vector<Scored>& evaluated, const StrategyContext& context, Rng& rng,
                                       std::vector<BirthInfo>* births = nullptr);

class GpStrategy : public Strategy {
public:
    explicit GpStrategy(StrategyContext context) : context_(std::move(context)) {}
    std::string name() const override { return "gp"; }
    std::vector<Genome> initial_population(Rng& rng) override;
    std::vector<Genome> next_population(const ScoredBatch& evaluated, Rng& rng) override;
    std::size_t population_size(int) const override { return context_.population; }
    std::optional<std::vector<Genome>> guess_next_population(const ScoredBatch& evaluated, Rng& rng) const override {
        return gp_next_population(evaluated.scored, context_, rng);
    }
    std::vector<BirthInfo> births() const override { return births_; }
    // The births of the population to be evaluated next, so a resumed run still records them.
    std::string save_state() const override { return births_to_text(births_); }
    void restore_state(const std::string& state) override { births_ = births_from_text(state, "gp"); }

private:
    StrategyContext context_;
    std::vector<BirthInfo> births_;
};

}  // namespace gi
