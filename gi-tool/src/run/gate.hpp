#pragma once
// Correctness gates beyond evaluate() (issue 3): when the evaluator can run a variant under
// compute-sanitizer (evaluate/cuda_checker.hpp), no variant becomes a parent or the best one
// without passing it. Evaluators without the gate (fake, compile-only) pass everything.
#include <cstddef>

#include "evaluate/cuda_checker.hpp"
#include "grammar/grammar.hpp"
#include "fitness/scored.hpp"

namespace gi {

// Runs the gate on accepted individuals in selection order until `parents` have passed, and on the
// fastest accepted one; an individual that fails (and every repeat of its program) loses its
// acceptance and takes the gate's status and detail. Returns how many distinct programs failed.
int gate_batch(ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents);

}  // namespace gi
