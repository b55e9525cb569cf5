#pragma once
// The initial population (seeds 000 8.14.1-8.14.2, 001 3.3.1): unique single mutants of the
// starting genome. A gene change is kGeneWeight times more likely than a change to any one live
// code rule (rules the preprocessor removes under the genome's configuration weigh zero). When
// unique mutants get hard to find, each new one also gets code edits: one more each time
// kEscalateAfter duplicates come in a row.
#include <set>
#include <string>
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "search/code_edit.hpp"
#include "util/rng.hpp"

namespace gi {

inline constexpr double kGeneWeight = 1000.0;
inline constexpr int kEscalateAfter = 20;

// One random single mutant of `base` (a gene change or a code edit, weighted as above) followed by
// `extra_code_edits` appended code edits. Throws gi::Error when the grammar offers nothing to change.
Genome random_mutant(const Genome& base, const Grammar& grammar, const EditDrawer& draw, Rng& rng,
                     int extra_code_edits = 0);

// `count` mutants of `base`, each unique by genome text and different from `base` and from every
// genome text in `avoid`. Throws gi::Error naming the shortfall when the grammar cannot supply that
// many (a tiny kernel with a large --population).
std::vector<Genome> unique_mutants(const Genome& base, std::size_t count, const Grammar& grammar,
                                   const EditDrawer& draw, Rng& rng, const std::set<std::string>& avoid = {});

}  // namespace gi
