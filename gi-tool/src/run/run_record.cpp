#include "run/run_record.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "compare/compare.hpp"
#include "run/time_budget.hpp"
#include "util/format.hpp"

namespace gi {

long long RunRecord::individuals() const {
    long long n = 0;
    for (const GenerationRecord& g : generations) n += g.evaluated;
    return n;
}

long long RunRecord::distinct_evaluated() const {
    long long n = 0;
    for (const GenerationRecord& g : generations) n += g.distinct;
    return n;
}

long long RunRecord::compiled() const {
    long long n = 0;
    for (const GenerationRecord& g : generations) n += g.compiled;
    return n;
}

long long RunRecord::left_outputs_unwritten() const {
    long long n = 0;
    for (const GenerationRecord& g : generations)
        for (const IndividualRecord& i : g.individuals)
            n += !i.repeat && i.status == EvalStatus::WrongAnswer && detail_says_unwritten(i.detail);
    return n;
}

namespace {
std::string or_original(const std::string& genome) { return genome.empty() ? "(none: the original kernel)" : genome; }

// The time limit against the run's wall time, and what the limit did to each phase (their notes
// say when it stopped them or they ran past their deadlines: run/time_budget.hpp); "" without one.
std::string time_limit_line(const RunRecord& record) {
    double limit = 0;
    for (const auto& [name, value] : record.settings)
        if (name == "time-limit-s") limit = std::atof(value.c_str());
    if (!(limit > 0)) return "";
    TimeBudget budget;
    budget.limit_s = limit;
    const double over = record.wall_seconds - limit;
    std::string line = fixed(limit, 0) + " s, margin " + fixed(budget.margin_s(), 0) + " s: the run took " +
                       fixed(record.wall_seconds, 1) + " s" +
                       (over > budget.margin_s() ? ", " + fixed(over, 1) + " s over the limit: more than its margin"
                                                 : "");
    std::vector<std::string> phases;
    auto about_limit = [&](const std::string& phase, const std::string& note) {
        if (note.find("time limit") != std::string::npos) phases.push_back(phase + ": " + note);
    };
    about_limit("pre-tuning", record.pre_tune.note);
    about_limit("search", record.stop_reason == "time limit" ? "stopped by the time limit" : record.stop_reason);
    about_limit("minimisation", record.minimise.note);
    about_limit("post-tuning", record.post_tune.note);
    about_limit("final checks", record.final_check.note);
    for (const std::string& p : phases) line += "\n  " + p;
    return line;
}
}  // namespace

std::string run_summary(const RunRecord& record) {
    std::ostringstream out;
    const double minutes = record.wall_seconds / 60.0;
    out << "generations:         " << record.generations.size()
        << (record.stop_reason.empty() ? "" : " (stopped by " + record.stop_reason + ")") << "\n";
    // Tuning points and minimisation steps are evaluations too; leaving them out of the rate made a
    // run that spent most of its time sweeping parameters look several times slower than it was.
    const long long tuning = static_cast<long long>(record.pre_tune.points.size() + record.post_tune.points.size());
    const long long minimising = static_cast<long long>(record.minimise.steps.size());
    const long long all = record.distinct_evaluated() + tuning + minimising;
    out << "variants evaluated:  " << record.distinct_evaluated() << " distinct of " << record.individuals()
        << " individuals in search";
    if (tuning + minimising > 0)
        out << ", plus " << tuning << " tuning points and " << minimising << " minimisation steps";
    out << "\n";
    out << "evaluated per minute: "
        << (minutes > 0 ? fixed(static_cast<double>(all) / minutes, 1) : std::string("n/a")) << " (" << all
        << " evaluations in a wall time of " << fixed(record.wall_seconds, 1) << " s, checks included)\n";
    const double phases = record.pre_tune_seconds + record.search_seconds + record.confirm_seconds +
                          record.minimise_seconds + record.post_tune_seconds + record.final_check_seconds;
    if (phases > 0)
        out << "wall time by phase:  pre-tuning " << fixed(record.pre_tune_seconds, 1) << " s, search "
            << fixed(record.search_seconds, 1) << " s, confirming the best " << fixed(record.confirm_seconds, 1)
            << " s, minimising " << fixed(record.minimise_seconds, 1) << " s, post-tuning "
            << fixed(record.post_tune_seconds, 1) << " s, final checks " << fixed(record.final_check_seconds, 1)
            << " s, the rest (cases, workers, files) " << fixed(std::max(0.0, record.wall_seconds - phases), 1) << " s\n";
    if (const std::string limit = time_limit_line(record); !limit.empty()) out << "time limit:          " << limit << "\n";
    if (!record.generations.empty() && record.search_evaluate_seconds + record.search_gate_seconds > 0)
        out << "search time:         evaluating " << fixed(record.search_evaluate_seconds, 1) << " s, sanitizer gate "
            << fixed(record.search_gate_seconds, 1) << " s (over " << record.generations.size() << " generations)"
            << (record.guesses_kept + record.guesses_discarded > 0
                    ? "; the gate's checks ran alongside " + fixed(record.search_gate_alongside_seconds, 1) +
                          " s of evaluating the next generation (" + std::to_string(record.guesses_kept) + " of " +
                          std::to_string(record.guesses_kept + record.guesses_discarded) + " guesses kept" +
                          (record.gate_prescreen_rejected > 0
                               ? ", bred without " + std::to_string(record.gate_prescreen_rejected) +
                                     " would-be parents the prescreen rejected"
                               : std::string()) +
                          "); of the gate's " +
                          fixed(record.search_gate_seconds, 1) + " s: evaluations ending " +
                          fixed(record.search_gate_delay_seconds, 1) + " s later for its GPU turns (their runs waited " +
                          fixed(record.search_gate_turn_wait_seconds, 1) + " s), waits for its checks to end " +
                          fixed(record.search_gate_join_seconds, 1) + " s, guesses not kept " +
                          fixed(record.search_gate_discarded_seconds, 1) + " s"
                    : std::string())
            << "\n";
    if (record.individuals() > 0)
        out << "compiled:            " << fixed(100.0 * static_cast<double>(record.compiled()) /
                                                    static_cast<double>(record.individuals()), 1)
            << "% of individuals\n";
    if (const long long unwritten = record.left_outputs_unwritten(); unwritten > 0)
        out << "left unwritten:      " << unwritten << " variant(s) in search refused: they left output elements unwritten "
            << "that the original writes (poisoned before every run, so such a variant is wrong on every case)\n";
    if (!record.measures_time)
        out << "note:                the " << record.evaluator
            << " evaluator gives no timings, so no variant can be accepted as faster\n";
    if (!record.pre_tune.ran && !record.base_genome.empty()) out << "started from:        " << record.base_genome << "\n";
    if (record.pre_tune.ran)
        out << (record.pre_tune.start.empty() ? "parameter tuning alone: " : "tuned from --start:  ") << or_original(record.pre_tune.best) << " ("
            << fixed(speedup(record.pre_tune.original, record.pre_tune.best_time), 3) << "x)\n";
    if (record.best.refused > 0)
        out << "refused as best:     " << record.best.refused << " accepted variant(s) wrong on another training case (last: "
            << record.best.last_refusal << ")\n";
    if (record.best.found && record.best.confirm_repeats > 0)
        out << "best speedup:        " << fixed(record.best.speedup, 3) << "x confirmed on case " << record.best.case_index
            << " (the search measured " << fixed(record.best.search_speedup, 3) << "x in generation "
            << record.best.generation + 1 << ")\n"
            << "best genome:         " << record.best.genome << "\n";
    else if (record.best.found)
        out << "best speedup:        " << fixed(record.best.speedup, 3) << "x in generation " << record.best.generation + 1
            << " on case " << record.best.case_index
            << (record.best.confirm_note.empty() ? std::string() : " (" + record.best.confirm_note + ")") << "\n"
            << "best genome:         " << record.best.genome << "\n";
    else if (!record.best.confirm_note.empty())
        out << "best speedup:        none (" << record.best.confirm_note << ")\n";
    else
        // best.cu holds the final genome below: the start (original kernel, pre-tuned or --start
        // genome), post-tuned.
        out << "best speedup:        none (no variant beat "
            << (record.base_genome.empty() ? std::string("the original kernel") : "the start '" + record.base_genome + "'")
            << ")\n";
    if (record.minimise.ran)
        out << "minimised genome:    " << or_original(record.minimise.after) << "\n";
    if (record.post_tune.ran && record.post_tune.best != record.post_tune.start)
        out << "post-tuned genome:   " << or_original(record.post_tune.best) << "\n";
    out << "final genome:        " << or_original(record.final_genome) << "\n";
    if (!record.final_check.note.empty()) out << "final check:         " << record.final_check.note << "\n";
    if (record.final_check.ran)
        out << "validation:          " << (record.final_check.passed ? "passed: " : "FAILED: ")
            << record.final_check.summary << "\n";
    return out.str();
}

}  // namespace gi
