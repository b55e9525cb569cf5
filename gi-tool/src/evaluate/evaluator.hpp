#pragma once
// Stage 6, evaluate: the narrow interface between search and whatever measures variants (a fake
// landscape in tests, nvcc alone, or the GPU). Search hands over a batch of variants and the index
// of a training case; the evaluator measures the original kernel and every variant on that case.
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
};

struct BatchResult {
    Timing original;                  // the unedited kernel on the same case
    std::vector<EvalResult> results;  // one per variant, in order
};

class Evaluator {
public:
    virtual ~Evaluator() = default;
    virtual std::string name() const = 0;
    // Number of training cases; search draws case indexes in [0, case_count()).
    virtual int case_count() const = 0;
    // Whether results carry timings (a search without them cannot find faster variants).
    virtual bool measures_time() const = 0;
    // Whether a result depends on nothing but the variant's program (its source and compile
    // options), so variants that are the same program may share one measurement. Not so for a
    // fake landscape keyed by genome text; false unless an evaluator says otherwise.
    virtual bool judges_the_program() const { return false; }
    virtual BatchResult evaluate(const std::vector<Variant>& variants, int case_index) = 0;
    // Variants evaluate() will probably be asked for next (the search's guess at its next generation
    // while the sanitizer gate runs): an evaluator that compiles may start on them now, so their
    // builds are ready or under way when they come. Changes no result; by default nothing.
    virtual void prepare_ahead(const std::vector<Variant>& variants) { (void)variants; }
    // A batch evaluate() ran on `case_index` was thrown away unseen (a guess at the next generation
    // that the gate spoiled): the case counts as used by search only if another batch used it, so
    // validation still runs on a training case search never looked at. By default nothing.
    virtual void discard_evaluation(int case_index) { (void)case_index; }
    // What a person should know about how this run was evaluated, for the end of its summary
    // (a slower compiler it had to fall back to, say); empty by default.
    virtual std::vector<std::string> run_notes() const { return {}; }
    // The GPU this evaluator measures on ("NVIDIA H200"), for the run record and the cache entry's
    // provenance; "" where there is none (fake, compile-only).
    virtual std::string device() { return ""; }
    // Where evaluate() has spent its time so far (seconds, cumulative, by what it waited for), so a
    // search can say per generation what a budget buys; empty for evaluators that do not split it.
    struct TimeSpent {
        std::string what;  // "waiting for compiles", "variant runs", ...
        double seconds = 0;
    };
    virtual std::vector<TimeSpent> time_spent() const { return {}; }
};

// Builds a Variant (applies the genome, computes the key).
struct Grammar;
Variant make_variant(const Genome& genome, const Grammar& grammar);

// Robust summary of repeated timings (median and 1.4826 x MAD).
Timing summarise_timings(std::vector<double> samples_ms);

}  // namespace gi
