#pragma once
// Correctness gates beyond evaluate() (issue 3): when the evaluator can run a variant under
// compute-sanitizer (evaluate/variant_checker.hpp), no variant becomes a parent or the best one
// without passing it. Evaluators without the gate (fake, compile-only) pass everything.
#include <cstddef>
#include <future>
#include <map>
#include <string>
#include <vector>

#include "evaluate/variant_checker.hpp"
#include "grammar/grammar.hpp"
#include "fitness/scored.hpp"

namespace gi {

// Runs the gate on accepted individuals in selection order until `parents` have passed, and on the
// fastest accepted one; an individual that fails (and every repeat of its program) loses its
// acceptance and takes the gate's status and detail. Returns how many distinct programs failed.
// `known`: verdicts already had for some programs (by variant key), as start_gate's; the walk is
// the same, it only asks the checker about the rest.
int gate_batch(ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents,
               const std::map<std::string, EvalResult>& known = {});

// gate_batch's first wave, started through VariantChecker::sanitize_many_async so that search can
// evaluate its guess at the next generation meanwhile (issue 19): the first `parents` accepted
// individuals in selection order and the fastest accepted one, which the walk checks first when
// they pass, as nearly all do. finish_gate then walks the batch as gate_batch does, with their
// verdicts known: the batch ends as gate_batch alone leaves it.
struct StartedGate {
    std::vector<std::string> keys;  // the variants asked about, in order
    std::future<std::vector<EvalResult>> verdicts;
    std::map<std::string, EvalResult> prescreened;  // rejections prescreen_parents() found, by variant key
};
StartedGate start_gate(const ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents);

// Before start_gate: the checker's prescreen (VariantChecker::prescreen, fast, only rejects) of
// the individuals gate_batch's walk is sure to check, the first `parents` accepted in selection
// order and the fastest accepted one. Each it rejects is marked failed in `batch` as gate_batch
// would mark it, so start_gate and the guess at the next generation see the batch closer to how the
// gate will leave it; its verdict goes to `started.prescreened`. Returns how many it rejected.
int prescreen_parents(ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents,
                      std::map<std::string, EvalResult>& rejected);
int finish_gate(StartedGate& started, ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents);

}  // namespace gi
