#include "search/gp_strategy.hpp"

#include <set>

#include "search/initial_population.hpp"
#include "search/operators.hpp"
#include "search/selection.hpp"

namespace gi {

std::vector<Genome> gp_next_population(const std::vector<Scored>& evaluated, const StrategyContext& context, Rng& rng,
                                       std::vector<BirthInfo>* births) {
    const Grammar& grammar = *context.grammar;
    auto born = [births](Birth birth, std::vector<std::string> parents) {
        if (births) births->push_back({birth, std::move(parents)});
    };
    const std::vector<std::size_t> parents = truncation_select(evaluated, context.population / 2);
    std::vector<Genome> children;
    for (std::size_t p = 0; p < parents.size(); ++p) {
        const Genome& parent = evaluated[parents[p]].genome;
        children.push_back(mutate(parent, grammar, context.draw, rng));
        born(Birth::Mutation, {genome_to_text(parent)});
        if (parents.size() < 2) {
            // Crossover needs two different parents; a lone parent makes a second mutant instead.
            children.push_back(mutate(parent, grammar, context.draw, rng));
            born(Birth::Mutation, {genome_to_text(parent)});
            continue;
        }
        std::size_t mate = rng.index(parents.size() - 1);
        if (mate >= p) ++mate;  // any parent but this one
        const Genome& other = evaluated[parents[mate]].genome;
        children.push_back(crossover(parent, other, grammar, context.draw, rng));
        born(Birth::Crossover, {genome_to_text(parent), genome_to_text(other)});
    }
    if (children.size() < context.population) {
        std::set<std::string> avoid;
        for (const Genome& child : children) avoid.insert(genome_to_text(child));
        std::vector<Genome> fresh =
            unique_mutants(context.base, context.population - children.size(), grammar, context.draw, rng, avoid);
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

}  // namespace gi
