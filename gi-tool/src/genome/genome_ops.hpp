#pragma once
// Small pure operations on genomes that search, minimisation and tuning share.
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"

namespace gi {

// One setting per gene (the value the genome finally gives it, at its first position) and no
// setting equal to the gene's default, so equal programs get equal genome text more often.
// Settings of genes the grammar lacks are kept for validation to report.
Genome canonical_genome(const Genome& genome, const Grammar& grammar);

// The genome's items in text order: settings ("NAME=value") then edits ("<A>+<B>").
std::vector<std::string> genome_items(const Genome& genome);
std::size_t genome_item_count(const Genome& genome);

// The genome without item `index` (numbered as genome_items numbers them).
Genome without_item(const Genome& genome, std::size_t index);

// Only the gene settings (what a parameter tuner could reach without code edits).
Genome settings_only(const Genome& genome);

}  // namespace gi
