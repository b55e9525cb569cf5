#include "search/operators.hpp"

#include <algorithm>

#include "genome/genome_ops.hpp"
#include "util/error.hpp"

namespace gi {

std::vector<int> mutable_genes(const Grammar& grammar) {
    std::vector<int> genes;
    for (std::size_t i = 0; i < grammar.genes.size(); ++i)
        if (grammar.genes[i].values.size() >= 2) genes.push_back(static_cast<int>(i));
    return genes;
}

std::optional<Genome> mutate_gene(const Genome& genome, const Grammar& grammar, Rng& rng) {
    const std::vector<int> genes = mutable_genes(grammar);
    if (genes.empty()) return std::nullopt;
    const Gene& gene = grammar.genes[static_cast<std::size_t>(genes[rng.index(genes.size())])];
    const std::string current = setting_or(genome, gene.name, gene.default_value);
    std::vector<std::string> others;
    for (const std::string& value : gene.values)
        if (value != current) others.push_back(value);
    if (others.empty()) return std::nullopt;  // the genome holds a value outside the list and it is the only other
    Genome child = genome;
    set_gene(child, gene.name, others[rng.index(others.size())]);
    return canonical_genome(child, grammar);
}

std::optional<Genome> append_code_edit(const Genome& genome, const Grammar& grammar, const EditDrawer& draw, Rng& rng) {
    std::optional<Edit> edit = draw(genome, rng);
    if (!edit) return std::nullopt;
    Genome child = genome;
    child.edits.push_back(std::move(*edit));
    return canonical_genome(child, grammar);
}

Genome mutate(const Genome& genome, const Grammar& grammar, const EditDrawer& draw, Rng& rng) {
    const bool gene_first = rng.chance(0.5);
    std::optional<Genome> child = gene_first ? mutate_gene(genome, grammar, rng)
                                             : append_code_edit(genome, grammar, draw, rng);
    if (!child) child = gene_first ? append_code_edit(genome, grammar, draw, rng) : mutate_gene(genome, grammar, rng);
    if (!child)
        throw Error(grammar.source_path + ": the kernel offers nothing to evolve (no gene with a choice and no "
                    "editable rule); declare --param/--flag genes or pick a --function with statements");
    return *child;
}

std::vector<Edit> two_point_splice(const std::vector<Edit>& a, const std::vector<Edit>& b, std::size_t a_from,
                                   std::size_t a_to, std::size_t b_from, std::size_t b_to) {
    if (a_from > a_to || a_to > a.size() || b_from > b_to || b_to > b.size())
        throw Error("two_point_splice: cut points out of order or past the edit lists");
    std::vector<Edit> spliced(a.begin(), a.begin() + static_cast<std::ptrdiff_t>(a_from));
    spliced.insert(spliced.end(), b.begin() + static_cast<std::ptrdiff_t>(b_from),
                   b.begin() + static_cast<std::ptrdiff_t>(b_to));
    spliced.insert(spliced.end(), a.begin() + static_cast<std::ptrdiff_t>(a_to), a.end());
    std::vector<Edit> unique;
    for (Edit& edit : spliced)
        if (std::find(unique.begin(), unique.end(), edit) == unique.end()) unique.push_back(std::move(edit));
    return unique;
}

Genome uniform_gene_crossover(const Genome& a, const Genome& b, const Grammar& grammar, Rng& rng) {
    Genome child;
    child.settings = a.settings;
    for (const Gene& gene : grammar.genes) {
        const std::string from_b = setting_or(b, gene.name, gene.default_value);
        if (setting_or(a, gene.name, gene.default_value) == from_b) continue;
        if (rng.chance(0.5)) set_gene(child, gene.name, from_b);
    }
    return canonical_genome(child, grammar);
}

namespace {
// Two cut points, uniformly among the size+1 positions, in order.
std::pair<std::size_t, std::size_t> cut_points(std::size_t size, Rng& rng) {
    std::size_t from = rng.index(size + 1), to = rng.index(size + 1);
    if (from > to) std::swap(from, to);
    return {from, to};
}
}  // namespace

std::optional<Genome> crossover_once(const Genome& a, const Genome& b, const Grammar& grammar, Rng& rng) {
    Genome child = uniform_gene_crossover(a, b, grammar, rng);
    const auto [a_from, a_to] = cut_points(a.edits.size(), rng);
    const auto [b_from, b_to] = cut_points(b.edits.size(), rng);
    child.edits = two_point_splice(a.edits, b.edits, a_from, a_to, b_from, b_to);
    child = canonical_genome(child, grammar);
    if (child.empty()) return std::nullopt;
    return child;
}

Genome crossover(const Genome& a, const Genome& b, const Grammar& grammar, const EditDrawer& draw, Rng& rng) {
    for (int attempt = 0; attempt < kCrossoverTries; ++attempt)
        if (std::optional<Genome> child = crossover_once(a, b, grammar, rng)) return *child;
    return mutate(a, grammar, draw, rng);
}

}  // namespace gi
