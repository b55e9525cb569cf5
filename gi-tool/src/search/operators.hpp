#pragma once
// Langdon's genetic operators on patch genomes (seeds 000 8.14.3-8.14.4, 001 3.3).
//   mutation: 50% change one gene to another of its allowed values, 50% append one code edit;
//   crossover: uniform on the gene settings, two-point on the edit list (duplicates removed, empty
//   children discarded, five tries and then a mutant of the first parent).
// Every function is pure given the Rng; results are canonical (see canonical_genome).
#include <optional>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "search/code_edit.hpp"
#include "util/rng.hpp"

namespace gi {

// Genes a mutation can change (two or more allowed values).
std::vector<int> mutable_genes(const Grammar& grammar);

// `genome` with one gene set to a different allowed value; nullopt when no gene has a choice.
std::optional<Genome> mutate_gene(const Genome& genome, const Grammar& grammar, Rng& rng);

// `genome` with one code edit appended; nullopt when the drawer has none.
std::optional<Genome> append_code_edit(const Genome& genome, const Grammar& grammar, const EditDrawer& draw, Rng& rng);

// 50% gene change, 50% code edit; when one kind is impossible the other is used. Throws gi::Error
// when the grammar offers neither (a kernel with nothing to evolve).
Genome mutate(const Genome& genome, const Grammar& grammar, const EditDrawer& draw, Rng& rng);

// The child's edit list: a[0, a_from) + b[b_from, b_to) + a[a_to, end), duplicates after the first
// occurrence removed. Requires a_from <= a_to <= a.size() and b_from <= b_to <= b.size().
std::vector<Edit> two_point_splice(const std::vector<Edit>& a, const std::vector<Edit>& b, std::size_t a_from,
                                   std::size_t a_to, std::size_t b_from, std::size_t b_to);

// Each gene on which the parents differ comes from either parent with equal chance.
Genome uniform_gene_crossover(const Genome& a, const Genome& b, const Grammar& grammar, Rng& rng);

// One crossover try: uniform on genes, random cut points on both edit lists. nullopt when the
// child is empty (the original kernel).
std::optional<Genome> crossover_once(const Genome& a, const Genome& b, const Grammar& grammar, Rng& rng);

inline constexpr int kCrossoverTries = 5;

// Up to kCrossoverTries crossover tries, then mutate(a).
Genome crossover(const Genome& a, const Genome& b, const Grammar& grammar, const EditDrawer& draw, Rng& rng);

}  // namespace gi
