#include "run/confirm_best.hpp"

#include <algorithm>
#include <set>
#include <vector>

#include "fitness/scored.hpp"
#include "util/format.hpp"

namespace gi {
namespace {

// Why `genome` is wrong on some training case other than `except`, or "" when it is right on all of
// them (Ok, error within max_error; speed is not asked). One case may not show what an edit breaks:
// hydro's blast states have no slopes to limit, so an edit that zeroes the limiter passes there.
std::string wrong_elsewhere(Evaluator& evaluator, const Grammar& grammar, const Genome& genome, int except,
                            const AcceptanceRule& rule) {
    for (int c = 0; c < evaluator.case_count(); ++c) {
        if (c == except) continue;
        const ScoredBatch check = evaluate_genomes(evaluator, grammar, {genome}, c, rule);
        const EvalResult& r = check.scored.front().result;
        if (r.status != EvalStatus::Ok) return "case " + std::to_string(c) + ": " + to_string(r.status) + " " + r.detail;
        if (r.error > rule.max_error)
            return "case " + std::to_string(c) + ": error " + exact(r.error) + " (allowed " +
                   exact(rule.max_error) + ")";
    }
    return "";
}

}  // namespace

void confirm_best(RunRecord& record, Evaluator& evaluator, const Grammar& grammar, const AcceptanceRule& rule,
                  const Deadline& deadline, const std::function<void(const std::string&)>& progress) {
    if (!record.best.found || evaluator.case_count() < 2) return;
    struct Candidate {
        const IndividualRecord* individual;
        const GenerationRecord* generation;
    };
    std::vector<Candidate> candidates;
    for (const GenerationRecord& g : record.generations)
        for (const IndividualRecord& i : g.individuals)
            if (i.accepted) candidates.push_back({&i, &g});
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.individual->speedup > b.individual->speedup; });
    std::set<std::string> tried;
    for (const Candidate& c : candidates) {
        if (tried.count(c.individual->genome)) continue;
        if (static_cast<int>(tried.size()) >= kMaxConfirmations) break;
        if (!tried.empty() && deadline.passed()) {
            progress("time limit: confirming the best stopped after " + std::to_string(tried.size()) +
                     " candidates, none right on every training case");
            break;
        }
        tried.insert(c.individual->genome);
        const Genome genome = parse_genome(c.individual->genome);
        if (const std::string why = wrong_elsewhere(evaluator, grammar, genome, c.generation->case_index, rule); !why.empty()) {
            ++record.best.refused;
            record.best.last_refusal = "'" + c.individual->genome + "': " + why;
            continue;
        }
        BestRecord& best = record.best;
        best.genome = c.individual->genome;
        best.speedup = c.individual->speedup;
        best.generation = c.generation->index;
        best.case_index = c.generation->case_index;
        best.original = c.generation->original;
        best.time = c.individual->time;
        best.error = c.individual->error;
        return;
    }
    record.best.found = false;
}

}  // namespace gi
