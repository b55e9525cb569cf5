#pragma once
// The draws of Paraiso's asynchronous genetic simulated annealing (seed 003 section 3.2-3.3), as
// pure functions: the temperature of a draw, the probability of each individual at that
// temperature (the seed's equation 17), and triangulation, the three-parent crossover of Table 4.
//
// Scores are "higher is better" with a mean and a deviation (history/score.hpp: speedup over the
// original on the same case, 0 for a failure).
#include <vector>

#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "history/score.hpp"
#include "util/rng.hpp"

namespace gi {

// Index of the individual with the largest mean (the first on a tie). Requires a non-empty list.
std::size_t best_index(const std::vector<Score>& scores);

// T drawn so that log T is uniform between log sigma(top) and log mu(top). A deviation of zero
// (exact timings) is raised to 1e-6 x mu(top) so the logarithm exists; with no positive mean at all
// (nothing has run yet) every temperature is as good as another and 1 is returned.
double draw_temperature(const Score& top, Rng& rng);

// Relative probability of each individual in a draw at temperature T, normalised to sum to 1:
//   exp((mu(I) - mu(top) + sigma(top) + sigma(I)) / (T + sigma(top) + sigma(I)))
// The seed prints the numerator as mu(top) - mu(I) + ..., but its text says low temperatures
// "strictly prefer high-score individuals" and differences small against the deviations are
// ignored; only the sign used here does both, so the printed sign is taken as a typo.
std::vector<double> draw_probabilities(const std::vector<Score>& scores, double temperature);

// Table 4: for every gene and every edit (present or absent), the child takes Primary's choice
// where Primary differs from Base, and Secondary's otherwise ("if at least one of Primary or
// Secondary has been changed from Base, adopt the change"; Primary wins a conflict). Parents are
// ordered by ascending score: base < secondary < primary. Edits keep Primary's order, then
// Secondary's, then Base's. Genes are compared by the value each genome gives them (defaults from
// `grammar`); the child sets only genes that differ from the default.
Genome triangulate(const Genome& base, const Genome& secondary, const Genome& primary, const Grammar& grammar);

}  // namespace gi
