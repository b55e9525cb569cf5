#pragma once
// What a run did, kept as values so it can be checkpointed, written as run.xml after every
// generation, compared in tests, and summarised for people at the end.
#include <string>
#include <utility>
#include <vector>

#include "evaluate/evaluator.hpp"
#include "fitness/generation_record.hpp"
#include "minimise/minimise.hpp"
#include "tune/tune.hpp"

namespace gi {

struct BestRecord {
    bool found = false;
    std::string genome;
    double speedup = 0;
    int generation = -1;
    int case_index = -1;
    Timing original, time;
    double error = 0;
    // Accepted variants not taken as best because another training case showed them wrong, and
    // the last one's reason (run/confirm_best.hpp).
    int refused = 0;
    std::string last_refusal;
    // Its speed measured again against the original (run/confirm_best.hpp): confirm_repeats paired
    // batches each (0: not measured again, and speedup, original and time are the search's), and
    // then speedup, original and time are those measurements; search_speedup is what the search
    // measured (found) or its best (none found faster). confirm_note says why speed was not
    // confirmed, or that nothing was faster. Records from before it read as not measured again.
    double search_speedup = 0;
    int confirm_repeats = 0;
    std::string confirm_note;
};

// The final variant's correctness checks, when the evaluator offers them (the cuda evaluator).
struct FinalCheckRecord {
    bool ran = false;
    std::string note;           // why not, or which candidate had to be given up and why
    bool passed = false;        // held-out validation passed
    std::string summary;        // ValidationReport::summary()
    long long elements = 0;     // output elements compared
    long long mismatches = 0;   // beyond tolerance
    double worst_error = 0;
};

struct RunRecord {
    std::vector<std::pair<std::string, std::string>> settings;  // options and input fingerprint, in order
    std::string evaluator;
    std::string device;  // the GPU it measured on (Evaluator::device), "" for none
    bool measures_time = true;
    std::string base_genome;  // the starting genome of the initial population
    TuneResult pre_tune;
    std::vector<GenerationRecord> generations;
    BestRecord best;
    MinimiseResult minimise;
    TuneResult post_tune;
    FinalCheckRecord final_check;
    std::string final_genome;  // best.genome: minimised and post-tuned
    std::string stop_reason;   // "generations", "time limit"; empty while the search runs
    bool finished = false;     // every phase done: final_genome is checked (sanitizer, validation)
    double wall_seconds = 0;   // summed over every session of the run (resumes included)
    // Of the search's generations (resumes included): time in the evaluator, and in the sanitizer
    // gate (run/gate.hpp). Wall times, like wall_seconds: kept with it, out of the comparisons.
    // The anneal strategy's workers gate inside their evaluations, so for it the gate is in the first.
    double search_evaluate_seconds = 0;
    double search_gate_seconds = 0;
    // Evaluation the gate ran alongside (EvolveOptions::overlap_gate): the seconds the search spent
    // evaluating its guesses at the next generation while the gate's checks ran (the evaluations
    // kept are in search_evaluate_seconds; the search's waits for the gate, and evaluating again
    // when a guess was not the next generation, in search_gate_seconds).
    double search_gate_alongside_seconds = 0;
    // search_gate_seconds' parts with the overlap: how much later evaluations ended for the gate's
    // GPU turns (of the turn waits, which compiles went on through), the waits for the checks to
    // end, and the evaluations a guess not kept cost: the next generation evaluated again after a
    // would-be parent failed (the history's cache answering for what the guess shares with it), or
    // a guess the time limit left unused.
    double search_gate_turn_wait_seconds = 0;
    double search_gate_delay_seconds = 0;
    double search_gate_join_seconds = 0;
    double search_gate_discarded_seconds = 0;
    // Where the wall time went, by phase (summed over sessions): pre-tuning, the search's
    // generations, confirming the best on every training case, minimising, post-tuning, and the
    // final checks (sanitizer and held-out validation). The rest of wall_seconds is the start
    // (opening the cases, starting workers) and writing files.
    double pre_tune_seconds = 0;
    double search_seconds = 0;
    double confirm_seconds = 0;
    double minimise_seconds = 0;
    double post_tune_seconds = 0;
    double final_check_seconds = 0;
    long long guesses_kept = 0;       // guesses evaluated alongside the gate that became the next generation
    long long guesses_discarded = 0;  // those not kept (a would-be parent failed, or the budget ended)
    long long gate_prescreen_rejected = 0;  // would-be parents the prescreen rejected before a guess

    long long individuals() const;
    long long distinct_evaluated() const;
    long long compiled() const;
    // Individuals in search (repeats of another in their generation aside) refused because they
    // left outputs unwritten (compare.hpp, detail_says_unwritten): elements the original writes,
    // poisoned before every run (compare/write_set.hpp).
    long long left_outputs_unwritten() const;
};

// The short human summary printed at the end of a run.
std::string run_summary(const RunRecord& record);

}  // namespace gi
