#pragma once
// Parameter tuning (seeds 000 8.11, 001 4.2-4.3): a sweep over the Param and Flag genes (the
// user-declared configuration genes, numeric or not), and the transformations the start applies
// (their parameters: tunable_genes), on top of a starting genome, every point
// measured on one case. Exhaustive when the space has at most `max_points` points, otherwise
// `max_points` distinct points drawn with the run's Rng. Before search the start is the empty genome
// or --start's (so the winner is "the best time by parameter tuning alone"); after minimisation it
// is the minimised genome.
#include <string>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "genome/genome.hpp"
#include "grammar/grammar.hpp"
#include "fitness/acceptance.hpp"
#include "util/deadline.hpp"
#include "util/rng.hpp"

namespace gi {

struct TuneOptions {
    int max_points = 256;   // --tune-max
    AcceptanceRule rule;    // a point must beat the start by the noise rule (and keep error within max_error)
    // Of the start and the accepted points, those within parsimony_k x noise of the fastest count as
    // equally fast, and the one changing fewest genes wins: as in minimisation, a change that does
    // not clearly matter is left out (it would otherwise ride along on measurement luck).
    double parsimony_k = 3;
    std::size_t batch = 64; // points per evaluate() call; the start is measured again in each batch
    // Measure only part `shard` (1-based) of `shards`: every shards-th point of the sweep's order.
    int shard = 1;
    int shards = 1;
    // The sweep stops between batches once this passes (evolve --time-limit), keeping the best of
    // the points measured. With a deadline, the first batch holds at most kFirstTimedBatch points
    // and later ones as many as the time left allows at the rate measured so far.
    Deadline deadline;
};

inline constexpr std::size_t kFirstTimedBatch = 16;

struct TunePoint {
    std::string genome;
    EvalStatus status = EvalStatus::Ok;
    double error = 0;
    Timing time;
    Timing start;      // the start genome in the same batch
    Timing original;   // the original kernel in the same batch
    double gain = 0;   // start.median / time.median (0 when not timed)
    bool accepted = false;
};

struct TuneResult {
    bool ran = false;
    std::string note;               // why it did not run, or how the space was covered
    int case_index = -1;
    double space_size = 0;          // points in the full space (a double: products overflow)
    bool sampled = false;
    std::string start;              // genome texts
    std::string best;               // == start when no point beat it
    Timing start_time, best_time;   // in the batch the best was measured in
    Timing original;                // the original kernel in that batch
    std::vector<TunePoint> points;
    std::size_t same_program = 0;   // points left out as the same program as one measured
    std::size_t planned = 0;        // points the sweep meant to measure (points.size() unless stopped)
    bool stopped = false;           // the deadline passed before every point was measured
};

// Genes a tuner sweeps: Param and Flag genes with two or more values, in grammar order.
std::vector<int> tunable_genes(const Grammar& grammar);

// Those, and the transformation genes (Unroll, Hoist, Unguard) `start` sets: a post-tune sweeps
// the parameter of each transformation search chose (unroll by 2, 4 or 8), never one it did not,
// so tuning alone stays "the best parameters" and the sweep stays small. In grammar order.
std::vector<int> tunable_genes(const Grammar& grammar, const Genome& start);

// The points of the sweep: the start genome with each combination of tunable values (the start's
// own combination excluded). Exhaustive in mixed-radix order, or `max_points` distinct samples.
// With `same_program`, a point that is the same program as the start or an earlier point (the same
// preprocessed text, grammar/preprocessed_identity.hpp, and compile options: it only sets genes no
// live code reads) is left out and counted there; tune() asks for that when its evaluator judges
// nothing but the program.
std::vector<Genome> tune_points(const Genome& start, const Grammar& grammar, int max_points, Rng& rng, bool& sampled,
                                double& space_size, std::size_t* same_program = nullptr);

// Runs the sweep on a case drawn from `rng` and picks the winner as TuneOptions describes. Does not run (ran == false, note says why) when the
// evaluator gives no timings or the grammar has no tunable gene.
TuneResult tune(const Genome& start, const Grammar& grammar, Evaluator& evaluator, const TuneOptions& options, Rng& rng);

}  // namespace gi
