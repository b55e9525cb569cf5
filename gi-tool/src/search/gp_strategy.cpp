#include "search/gp_strategy.hpp"

#include <set>

#include "search/initial_population.hpp"
#include "search/operators.hpp"
#include "search/selection.hpp"
#include "search/strategy_table.hpp"

namespace gi {

std::vector<Genome> gp_next_population(const std::vector<Scored>& evaluated, const StrategyContext& context, Rng& rng,
                                       std::vector<BirthInfo>* births) {
    const Grammar& grammar = *context.grammar;
    auto born = [births](Birth birth, std::vector<std::string> parents) {
        if (births) births->push_back({birth, std::move(parents)});
    };
    // Evolve breeds a guess at this generation before the sanitizer gate has judged the parents
    // and keeps its measurements for every child the real one shares with it
    // (run/gate_overlap.hpp). So breeding takes one draw of the run's generator, whatever it
    // breeds (the next generation's case, drawn after it, is guessed right), and each parent slot
    // draws from a stream of its own: a parent the gate fails changes its slot's children and
    // those that mated with it, not all.
    const std::uint64_t seed = rng.next();
    const std::vector<std::optional<std::size_t>> slots = parent_slots(evaluated, context.population / 2);
    std::size_t filled = 0;
    for (const auto& slot : slots) filled += slot.has_value();
    if (context.prefetch) {
        std::vector<Genome> parents;
        for (const auto& slot : slots)
            if (slot) parents.push_back(evaluated[*slot].genome);
        context.prefetch(parents);
    }
    std::vector<Genome> children;
    for (std::size_t p = 0; p < slots.size(); ++p) {
        if (!slots[p]) continue;
        Rng own = Rng::stream(seed, p);
        const Genome& parent = evaluated[*slots[p]].genome;
        children.push_back(mutate(parent, grammar, context.draw, own));
        born(Birth::Mutation, {genome_to_text(parent)});
        if (filled < 2) {
            // Crossover needs two different parents; a lone parent makes a second mutant instead.
            children.push_back(mutate(parent, grammar, context.draw, own));
            born(Birth::Mutation, {genome_to_text(parent)});
            continue;
        }
        std::size_t mate = p;
        while (mate == p || !slots[mate]) {  // any filled slot but this one
            mate = own.index(slots.size() - 1);
            if (mate >= p) ++mate;
        }
        const Genome& other = evaluated[*slots[mate]].genome;
        children.push_back(crossover(parent, other, grammar, context.draw, own));
        born(Birth::Crossover, {genome_to_text(parent), genome_to_text(other)});
    }
    if (children.size() < context.population) {
        std::set<std::string> avoid;
        for (const Genome& child : children) avoid.insert(genome_to_text(child));
        Rng fresh_draws = Rng::stream(seed, slots.size());
        std::vector<Genome> fresh = unique_mutants(context.base, context.population - children.size(), grammar,
                                                   context.draw, fresh_draws, avoid);
        for (std::size_t k = 0; k < fresh.size(); ++k) born(Birth::Init, {genome_to_text(context.base)});
        children.insert(children.end(), fresh.begin(), fresh.end());
    }
    return children;
}

std::vector<Genome> GpStrategy::initial_population(Rng& rng) {
    std::vector<Genome> population =
        unique_mutants(context_.base, context_.population, *context_.grammar, context_.draw, rng);
    births_.assign(population.size(), BirthInfo{Birth::Init, {genome_to_text(context_.base)}});
    return population;
}

std::vector<Genome> GpStrategy::next_population(const ScoredBatch& evaluated, Rng& rng) {
    births_.clear();
    return gp_next_population(evaluated.scored, context_, rng, &births_);
}

StrategyEntry gp_strategy_entry() {
    StrategyEntry entry;
    entry.name = "gp";
    entry.summary = "Langdon's generational GP";
    entry.make = strategy_factory<GpStrategy>();
    return entry;
}

}  // namespace gi
