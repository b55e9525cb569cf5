#include "search/nsga2.hpp"

#include <algorithm>
#include <cmath>

#include "genome/genome_ops.hpp"
#include "search/operators.hpp"
#include "util/error.hpp"

namespace gi {
namespace {

constexpr int kNewGenomeTries = 20;

// Messy crossover of the edit lists with the genes exchanged uniformly: two complementary children.
std::pair<Genome, Genome> messy_children(const Genome& a, const Genome& b, const Grammar& grammar, Rng& rng) {
    auto [edits_a, edits_b] = messy_crossover(a.edits, b.edits, rng);
    Genome first, second;
    for (const Gene& gene : grammar.genes) {
        const std::string va = setting_or(a, gene.name, gene.default_value);
        const std::string vb = setting_or(b, gene.name, gene.default_value);
        const bool swap = va != vb && rng.chance(0.5);
        set_gene(first, gene.name, swap ? vb : va);
        set_gene(second, gene.name, swap ? va : vb);
    }
    first.edits = std::move(edits_a);
    second.edits = std::move(edits_b);
    return {canonical_genome(first, grammar), canonical_genome(second, grammar)};
}

}  // namespace

Objectives objectives_of(const Scored& scored, double max_error) {
    const bool ran = scored.result.status == EvalStatus::Ok && scored.speedup > 0;
    return make_objectives(ran, ran ? 1.0 / scored.speedup : INFINITY, scored.result.error, max_error);
}

std::vector<std::size_t> pareto_front(const std::vector<Objectives>& population) {
    std::vector<Objectives> unconstrained;
    std::vector<std::size_t> ran;
    for (std::size_t i = 0; i < population.size(); ++i) {
        if (!std::isfinite(population[i].time)) continue;
        Objectives o = population[i];
        o.violation = 0;
        unconstrained.push_back(o);
        ran.push_back(i);
    }
    if (unconstrained.empty()) return {};
    std::vector<std::size_t> front;
    const std::vector<std::vector<std::size_t>> fronts = non_dominated_sort(unconstrained);
    for (std::size_t k : fronts.front()) front.push_back(ran[k]);
    std::stable_sort(front.begin(), front.end(),
                     [&](std::size_t a, std::size_t b) { return population[a].time < population[b].time; });
    return front;
}

Nsga2Strategy::Nsga2Strategy(StrategyContext context, Nsga2Options options)
    : context_(std::move(context)), options_(options) {}

Genome Nsga2Strategy::make_new(Genome child, bool must_mutate, std::set<std::string>& taken, Rng& rng, bool& mutated) {
    const Grammar& grammar = *context_.grammar;
    mutated = false;
    for (int tries = 0; must_mutate || child.empty() || taken.count(genome_to_text(child)); ++tries) {
        if (tries == kNewGenomeTries) break;  // a tiny kernel: accept a repeat rather than loop forever
        child = mutate(child, grammar, context_.draw, rng);
        mutated = true;
        must_mutate = false;
    }
    taken.insert(genome_to_text(child));
    return child;
}

std::vector<Genome> Nsga2Strategy::initial_population(Rng& rng) {
    const Grammar& grammar = *context_.grammar;
    std::vector<Genome> population;
    std::set<std::string> taken{genome_to_text(context_.base)};
    births_.clear();
    const std::size_t limit = context_.population * 50;
    for (std::size_t attempt = 0; population.size() < context_.population && attempt < limit; ++attempt) {
        Genome g = context_.base;
        for (int m = 0; m < options_.initial_mutations; ++m) g = mutate(g, grammar, context_.draw, rng);
        if (!taken.insert(genome_to_text(g)).second) continue;
        population.push_back(std::move(g));
        births_.push_back({Birth::Init, {genome_to_text(context_.base)}});
    }
    if (population.size() < context_.population)
        throw Error(grammar.source_path + ": only " + std::to_string(population.size()) +
                    " distinct genomes of three mutations found for a population of " +
                    std::to_string(context_.population) + "; use a smaller --population");
    return population;
}

std::vector<Genome> Nsga2Strategy::next_population(const ScoredBatch& evaluated, Rng& rng) {
    // One entry per genome: the same genome twice (an elite bred again) is one individual.
    std::vector<const Scored*> pool;
    std::set<std::string> texts;
    for (const Scored& s : evaluated.scored)
        if (texts.insert(genome_to_text(s.genome)).second) pool.push_back(&s);
    if (pool.empty()) return initial_population(rng);

    std::vector<Objectives> objectives;
    for (const Scored* s : pool) objectives.push_back(objectives_of(*s, context_.max_error));
    const std::vector<CrowdedRank> pool_ranks = crowded_ranks(objectives);
    const std::vector<std::size_t> kept = select_best(pool_ranks, context_.population);  // best first

    std::vector<CrowdedRank> ranks;  // of the kept population, for the tournaments
    for (std::size_t i : kept) ranks.push_back(pool_ranks[i]);
    auto genome_of = [&](std::size_t k) -> const Genome& { return pool[kept[k]]->genome; };

    if (context_.prefetch) {  // the tournaments draw their parents from the kept population
        std::vector<Genome> parents;
        for (std::size_t k = 0; k < kept.size(); ++k) parents.push_back(genome_of(k));
        context_.prefetch(parents);
    }
    std::vector<Genome> next;
    births_.clear();
    std::set<std::string> taken;
    const std::size_t elites = elite_count();
    for (std::size_t k = 0; k < std::min(elites, kept.size()); ++k) {
        next.push_back(genome_of(k));
        taken.insert(genome_to_text(genome_of(k)));
        births_.push_back({Birth::Elite, {genome_to_text(genome_of(k))}});
    }
    while (next.size() < elites + context_.population) {
        const std::size_t a = binary_tournament(ranks, rng), b = binary_tournament(ranks, rng);
        const std::string text_a = genome_to_text(genome_of(a)), text_b = genome_to_text(genome_of(b));
        std::vector<std::pair<Genome, BirthInfo>> children;
        if (rng.chance(options_.cross_rate) && a != b) {
            auto [x, y] = messy_children(genome_of(a), genome_of(b), *context_.grammar, rng);
            children.push_back({std::move(x), {Birth::Crossover, {text_a, text_b}}});
            children.push_back({std::move(y), {Birth::Crossover, {text_a, text_b}}});
        } else {
            children.push_back({genome_of(a), {Birth::Mutation, {text_a}}});
            children.push_back({genome_of(b), {Birth::Mutation, {text_b}}});
        }
        for (auto& [child, birth] : children) {
            if (next.size() == elites + context_.population) break;
            const bool copy = birth.birth == Birth::Mutation;  // not crossed: only a mutation makes it new
            bool mutated = false;
            Genome made = make_new(std::move(child), copy || rng.chance(options_.mutate_rate), taken, rng, mutated);
            next.push_back(std::move(made));
            births_.push_back(birth);
        }
    }
    return next;
}

std::string Nsga2Strategy::save_state() const { return births_to_text(births_); }

void Nsga2Strategy::restore_state(const std::string& state) { births_ = births_from_text(state, "nsga2"); }

}  // namespace gi
