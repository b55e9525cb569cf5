#include "search/initial_population.hpp"

#include "genome/genome_ops.hpp"
#include "search/operators.hpp"
#include "util/error.hpp"

namespace gi {

Genome random_mutant(const Genome& base, const Grammar& grammar, const EditDrawer& draw, Rng& rng,
                     int extra_code_edits) {
    const double gene_weight = kGeneWeight * static_cast<double>(mutable_genes(grammar).size());
    const double code_weight = static_cast<double>(live_rule_count(grammar, base));
    if (gene_weight + code_weight <= 0)
        throw Error(grammar.source_path + ": the kernel offers nothing to evolve (no gene with a choice and no "
                    "editable rule); declare --param/--flag genes or pick a --function with statements");
    std::optional<Genome> child;
    if (rng.uniform01() * (gene_weight + code_weight) < gene_weight)
        child = mutate_gene(base, grammar, rng);
    else
        child = append_code_edit(base, grammar, draw, rng);
    if (!child) child = mutate(base, grammar, draw, rng);
    for (int i = 0; i < extra_code_edits; ++i)
        if (std::optional<Genome> longer = append_code_edit(*child, grammar, draw, rng)) child = std::move(longer);
    return *child;
}

std::vector<Genome> unique_mutants(const Genome& base, std::size_t count, const Grammar& grammar,
                                   const EditDrawer& draw, Rng& rng, const std::set<std::string>& avoid) {
    std::set<std::string> seen = avoid;
    seen.insert(genome_to_text(canonical_genome(base, grammar)));
    std::vector<Genome> mutants;
    int duplicates_in_a_row = 0;
    int extra_code_edits = 0;  // only grows: once singles run out, going back to them wastes tries
    long long tries = 0;
    const long long max_tries = 1000 + 200 * static_cast<long long>(count);
    while (mutants.size() < count) {
        if (++tries > max_tries)
            throw Error(grammar.source_path + ": found only " + std::to_string(mutants.size()) + " distinct mutants of " +
                        std::to_string(count) + " wanted in " + std::to_string(max_tries) +
                        " tries; the kernel offers too few changes for this population (lower --population)");
        Genome mutant = random_mutant(base, grammar, draw, rng, extra_code_edits);
        if (seen.insert(genome_to_text(mutant)).second) {
            mutants.push_back(std::move(mutant));
            duplicates_in_a_row = 0;
        } else if (++duplicates_in_a_row >= kEscalateAfter) {
            ++extra_code_edits;
            duplicates_in_a_row = 0;
        }
    }
    return mutants;
}

}  // namespace gi
