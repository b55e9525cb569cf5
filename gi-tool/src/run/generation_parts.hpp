#pragma once
// A generation evaluated in parts, so that the time limit can stop it between them (issue 40). An
// evaluator's batch cannot be interrupted: a sample program's first generation (nvcc at 1 s a
// compile, -rdc, four instantiations) ran past its 23 s limit, silent, until the CMake module's
// watchdog killed the run a minute later. evolve() evaluates a generation in parts when the time
// limit is set and the generation's time is not known yet (its first in this session) or is
// expected to end past the search's deadline; otherwise in one batch, as before.
//
// Parts: the first holds kFirstGenerationPart genomes when nothing has been measured; later ones
// as many as the time a genome has taken so far says fit both the time left and
// kGenerationPartSeconds, and at most kGenerationPartGrowth times the last part. The deadline is
// checked between parts: once it has passed, or not one more genome is expected to fit, the
// generation stops there and the genomes evaluated so far are its batch.
//
// The batch is the one evaluate_genomes would make of the whole generation with an evaluator whose
// results do not depend on what else is in the batch (the fake one, a fitness cache): a genome
// whose program an earlier part measured is copied as a repeat, not evaluated again. Each part's
// genomes are judged against the original measured in the same part; the batch's `original` is the
// first part's.
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "fitness/scored.hpp"
#include "grammar/grammar.hpp"
#include "util/deadline.hpp"

namespace gi {

inline constexpr std::size_t kFirstGenerationPart = 8;
inline constexpr double kGenerationPartSeconds = 10;
inline constexpr std::size_t kGenerationPartGrowth = 4;
// A long generation says how far it has got at most this often (after a part).
inline constexpr double kGenerationProgressSeconds = 10;
// A generation expected to take this long or more, or whose time is not known yet, says so as it
// starts; quicker ones only when they end (at a terminal the end replaces the start line).
inline constexpr double kGenerationStartLineSeconds = 2;

// evolve's evaluation of genomes on a case (the history's fitness cache, or evaluate_genomes).
using EvaluateGenomes = std::function<ScoredBatch(const std::vector<Genome>& genomes, int case_index)>;

struct GenerationParts {
    ScoredBatch batch;        // the first batch.scored.size() genomes given, in their order
    std::size_t planned = 0;  // the genomes given
    int parts = 0;            // calls to `evaluate`
    double seconds = 0;       // on the deadline's clock
    double last_part_seconds = 0;
    bool stopped() const { return batch.scored.size() < planned; }
};

// Evaluates `genomes` on `case_index` in parts through `evaluate`, checking `deadline` between
// them. `seconds_a_genome`: the time one took in earlier generations (< 0: not measured yet).
// `name` ("generation 3/50") starts the lines `progress` hears after a part, at most every
// kGenerationProgressSeconds: "generation 3/50: 24 of 40 variants evaluated in 14.2 s; 20 s of the
// search left".
GenerationParts evaluate_in_parts(const std::vector<Genome>& genomes, int case_index, const Grammar& grammar,
                                  const EvaluateGenomes& evaluate, const Deadline& deadline, double seconds_a_genome,
                                  const std::string& name, const std::function<void(const std::string&)>& progress);

// The line a generation starts with, so that a slow one is never silent: "generation 3/50:
// evaluating 40 variants (about 12 s at 0.30 s each; 50 s of the search left)". `in_parts`: it is
// evaluated by evaluate_in_parts, which the line then says.
std::string generation_start_line(const std::string& name, std::size_t genomes, double seconds_a_genome,
                                  const Deadline& deadline, bool in_parts);

}  // namespace gi
