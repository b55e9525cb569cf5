#include "run/gate.hpp"

#include <map>
#include <set>

#include "search/selection.hpp"

namespace gi {
namespace {

// The accepted individual with the highest speedup (the first of a tie), or size() when none is.
std::size_t fastest_accepted(const std::vector<Scored>& scored) {
    std::size_t fastest = scored.size();
    for (std::size_t i = 0; i < scored.size(); ++i)
        if (scored[i].accepted && (fastest == scored.size() || scored[i].speedup > scored[fastest].speedup)) fastest = i;
    return fastest;
}

// Individual i failed the gate with `verdict`: it and every repeat of its program lose their
// acceptance and take the verdict's status and detail.
void mark_failed(ScoredBatch& batch, std::size_t i, const EvalResult& verdict) {
    const std::string text = genome_to_text(batch.scored[i].genome);
    for (std::size_t j = 0; j < batch.scored.size(); ++j) {
        Scored& other = batch.scored[j];
        if (j != i && genome_to_text(other.genome) != text) continue;
        if (other.accepted) other.failed_gate = true;
        other.accepted = false;
        other.result.status = verdict.status;
        other.result.detail = verdict.detail;
    }
}

// The distinct programs gate_batch's walk checks before any verdict is in: those of the first
// `parents` accepted individuals in selection order and of the fastest accepted one, each with
// the individual it was first found in.
struct FirstWalked {
    std::vector<Variant> variants;
    std::vector<std::size_t> of;
};

FirstWalked first_walked(const ScoredBatch& batch, const Grammar& grammar, std::size_t parents) {
    std::vector<std::size_t> order = truncation_select(batch.scored, parents);
    if (const std::size_t fastest = fastest_accepted(batch.scored); fastest != batch.scored.size()) order.push_back(fastest);
    FirstWalked walked;
    std::set<std::string> keys;
    for (std::size_t i : order) {
        Variant v = make_variant(batch.scored[i].genome, grammar);
        if (!keys.insert(v.key).second) continue;
        walked.variants.push_back(std::move(v));
        walked.of.push_back(i);
    }
    return walked;
}

}  // namespace

int prescreen_parents(ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents,
                      std::map<std::string, EvalResult>& rejected) {
    const FirstWalked walked = first_walked(batch, grammar, parents);
    const std::vector<Variant>& variants = walked.variants;
    if (variants.empty()) return 0;
    const std::vector<std::optional<EvalResult>> verdicts = checker.prescreen(variants, checker.gate_case(batch.case_index));
    int count = 0;
    for (std::size_t k = 0; k < variants.size() && k < verdicts.size(); ++k) {
        if (!verdicts[k] || verdicts[k]->status == EvalStatus::Ok) continue;
        rejected.emplace(variants[k].key, *verdicts[k]);
        mark_failed(batch, walked.of[k], *verdicts[k]);
        ++count;
    }
    return count;
}

int gate_batch(ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents,
               const std::map<std::string, EvalResult>& known) {
    std::map<std::string, EvalResult> verdicts = known;  // by variant key
    std::vector<std::string> keys(batch.scored.size());
    int failed = 0;
    for (const auto& [key, verdict] : known) failed += verdict.status != EvalStatus::Ok;
    // Gates individual i; false when it failed (then it and its repeats are no longer accepted).
    auto gate = [&](std::size_t i) {
        Scored& s = batch.scored[i];
        if (keys[i].empty()) keys[i] = make_variant(s.genome, grammar).key;
        auto it = verdicts.find(keys[i]);
        if (it == verdicts.end()) {
            it = verdicts.emplace(keys[i], checker.sanitize(make_variant(s.genome, grammar), checker.gate_case(batch.case_index))).first;
            failed += it->second.status != EvalStatus::Ok;
        }
        if (it->second.status == EvalStatus::Ok) return true;
        mark_failed(batch, i, it->second);
        return false;
    };
    // The parents are gated in waves: each wave asks the checker about as many not-yet-judged
    // candidates as parents are still missing, all at once (a checker may run them in parallel).
    // The set gated is the one a one-at-a-time walk in selection order would gate.
    const std::vector<std::size_t> order = truncation_select(batch.scored, batch.scored.size());
    std::size_t passed = 0;
    std::size_t next = 0;
    while (passed < parents && next < order.size()) {
        std::vector<std::size_t> wave;
        std::vector<Variant> variants;
        std::set<std::string> in_wave;
        while (next < order.size() && passed + wave.size() < parents) {
            const std::size_t i = order[next++];
            if (!batch.scored[i].accepted) continue;
            if (keys[i].empty()) keys[i] = make_variant(batch.scored[i].genome, grammar).key;
            wave.push_back(i);
            if (!verdicts.count(keys[i]) && in_wave.insert(keys[i]).second)
                variants.push_back(make_variant(batch.scored[i].genome, grammar));
        }
        const std::vector<EvalResult> results = checker.sanitize_many(variants, checker.gate_case(batch.case_index));
        for (std::size_t k = 0; k < variants.size(); ++k) {
            verdicts.emplace(variants[k].key, results[k]);
            failed += results[k].status != EvalStatus::Ok;
        }
        // A repeat of a program that failed earlier in this wave is no longer accepted: skip it.
        for (std::size_t i : wave)
            if (batch.scored[i].accepted && gate(i)) ++passed;
    }
    for (;;) {
        const std::size_t fastest = fastest_accepted(batch.scored);
        if (fastest == batch.scored.size() || gate(fastest)) break;
    }
    return failed;
}

StartedGate start_gate(const ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents) {
    StartedGate started;
    const FirstWalked walked = first_walked(batch, grammar, parents);
    for (const Variant& v : walked.variants) started.keys.push_back(v.key);
    started.verdicts = checker.sanitize_many_async(walked.variants, checker.gate_case(batch.case_index));
    return started;
}

int finish_gate(StartedGate& started, ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents) {
    const std::vector<EvalResult> results = started.verdicts.get();
    std::map<std::string, EvalResult> known = started.prescreened;
    for (std::size_t k = 0; k < started.keys.size() && k < results.size(); ++k) known.emplace(started.keys[k], results[k]);
    return gate_batch(batch, checker, grammar, parents, known);
}

}  // namespace gi
