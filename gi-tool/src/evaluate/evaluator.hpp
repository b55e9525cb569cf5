#pragma once
// Stage 6, evaluate: the narrow interface between search and whatever measures variants (a fake
// landscape in tests, nvcc alone, or the GPU: cuda/cuda_evaluator.hpp). Search hands over a batch
// of variants and the index of a training case; the evaluator measures the original kernel and
// every variant on that case.
#include <cmath>
#include <string>
#include <vector>

#include "genome/genome.hpp"

namespace gi {

enum class EvalStatus {
    Ok,              // ran; `error` says how far the outputs are from the original's
    CompileError,
    Crash,           // the variant faulted or aborted (the worker survived or was restarted)
    Timeout,
    SanitizerError,  // compute-sanitizer reported a memory error, race or barrier misuse
    WrongAnswer,     // outputs beyond the evaluator's hard limit (unwritten outputs, NaN...)
};

std::string to_string(EvalStatus status);
EvalStatus eval_status_from_string(const std::string& text);  // throws gi::Error on unknown text

// Repeated timings of one kernel on one case. spread is a robust standard-deviation estimate
// (1.4826 x median absolute deviation) of the repetitions, in the same unit.
struct Timing {
    double median_ms = NAN;
    double spread_ms = NAN;
    int repetitions = 0;
    bool valid() const { return std::isfinite(median_ms); }
};

struct Variant {
    Genome genome;
    std::string source;                        // the applied variant file
    std::vector<std::string> compile_options;  // flags from Flag genes
    std::string key;                           // sha256 of (source, options): equal keys are the same program
};

struct EvalResult {
    EvalStatus status = EvalStatus::Ok;
    double error = 0;   // >= 0; 0 means outputs identical within the comparison modes
    Timing time;        // invalid unless status == Ok and the evaluator times (compile-only does not)
    std::string detail; // the cause of a failure, for people and the run record
    // What this variant is judged against when it is not the batch's `original`: an evaluator that
    // spreads a batch over several GPUs (cuda/multi_gpu_evaluator.hpp) times the original on each,
    // and a variant run on another GPU than the batch's original carries its own GPU's, with both
    // its time and this one scaled by (batch original / its GPU's original): its speedup, its
    // acceptance and any comparison of times within the batch are then against the original timed
    // on its own GPU. Invalid (the default): the batch's original.
    Timing original{};
};

// The original `result` is judged against in a batch whose original is `batch_original`.
inline const Timing& original_for(const EvalResult& result, const Timing& batch_original) {
    return result.original.valid() ? result.original : batch_original;
}

struct BatchResult {
    Timing original;                  // the unedited kernel on the same case
    std::vector<EvalResult> results;  // one per variant, in order
};

// What an evaluator is, the same for its whole life: asked whenever needed.
struct EvaluatorTraits {
    std::string name;  // "cuda", "compile-only", "fake(seed=1,...)": for messages and the run record
    // Training cases; search draws case indexes in [0, case_count).
    int case_count = 0;
    // Whether results carry timings (a search without them cannot find faster variants).
    bool measures_time = false;
    // Whether a result depends on nothing but the variant's program (its source and compile
    // options), so variants that are the same program may share one measurement. Not so for a
    // fake landscape keyed by genome text.
    bool judges_the_program = false;
};

// What an evaluator has to say about the run so far, for its record, its progress lines and the
// end of its summary. Every field is empty or 0 where an evaluator keeps no such account.
struct EvaluatorReport {
    struct TimeSpent {
        std::string what;  // "waiting for compiles", "variant runs", ...
        double seconds = 0;
    };
    // The GPU it measures on ("NVIDIA H200"), for the run record and the cache entry's provenance.
    std::string device;
    // What a person should know about how the run was evaluated (a slower compiler it had to fall
    // back to, say).
    std::vector<std::string> notes;
    // Where evaluate() has spent its time so far (seconds, cumulative, by what it waited for), so a
    // search can say per generation what a budget buys.
    std::vector<TimeSpent> time_spent;
    // Seconds evaluate() has waited for its checker's checks running alongside it to leave the GPU
    // (VariantChecker::checks_alongside_evaluation), and how much later its batches ended for
    // those waits (compiles go on during a wait, so the runs after it catch up): the part of the
    // gate that held evaluation back.
    double waited_for_checks_s = 0;
    double delayed_by_checks_s = 0;
};

class VariantChecker;

// Four calls: what it is, a batch measured, what it has to report, and its correctness gate. A
// decorator (a lock, a cache) implements evaluate() and passes the other three on.
class Evaluator {
public:
    using TimeSpent = EvaluatorReport::TimeSpent;

    virtual ~Evaluator() = default;
    virtual EvaluatorTraits traits() const = 0;
    virtual BatchResult evaluate(const std::vector<Variant>& variants, int case_index) = 0;
    virtual EvaluatorReport report() { return {}; }
    // The sanitizer gate and final checks this evaluator offers (evaluate/variant_checker.hpp);
    // nullptr when it has none, and every variant then passes.
    virtual VariantChecker* checker() { return nullptr; }

    std::string name() const { return traits().name; }
    int case_count() const { return traits().case_count; }
};

// Builds a Variant (applies the genome, computes the key).
struct Grammar;
Variant make_variant(const Genome& genome, const Grammar& grammar);

// Robust summary of repeated timings (median and 1.4826 x MAD).
Timing summarise_timings(std::vector<double> samples_ms);

// Combined noise of two timings, sqrt(a^2 + b^2) of their spreads; a spread that is missing (NaN)
// counts as zero. What acceptance and the batch's yardstick (cuda/original_yardstick) weigh a
// difference of medians against.
double combined_spread(const Timing& a, const Timing& b);

}  // namespace gi
