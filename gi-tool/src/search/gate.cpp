#include "search/gate.hpp"

#include <map>

#include "search/selection.hpp"

namespace gi {

int gate_batch(ScoredBatch& batch, VariantChecker& checker, const Grammar& grammar, std::size_t parents) {
    std::map<std::string, EvalResult> verdicts;  // by variant key
    std::vector<std::string> keys(batch.scored.size());
    int failed = 0;
    // Gates individual i; false when it failed (then it and its repeats are no longer accepted).
    auto gate = [&](std::size_t i) {
        Scored& s = batch.scored[i];
        if (keys[i].empty()) keys[i] = make_variant(s.genome, grammar).key;
        auto it = verdicts.find(keys[i]);
        if (it == verdicts.end()) {
            it = verdicts.emplace(keys[i], checker.sanitize(make_variant(s.genome, grammar), batch.case_index)).first;
            failed += it->second.status != EvalStatus::Ok;
        }
        if (it->second.status == EvalStatus::Ok) return true;
        for (std::size_t j = 0; j < batch.scored.size(); ++j) {
            Scored& other = batch.scored[j];
            if (j != i && genome_to_text(other.genome) != genome_to_text(s.genome)) continue;
            other.accepted = false;
            other.result.status = it->second.status;
            other.result.detail = it->second.detail;
        }
        return false;
    };
    std::size_t passed = 0;
    for (std::size_t i : truncation_select(batch.scored, batch.scored.size())) {
        if (passed >= parents) break;
        if (batch.scored[i].accepted && gate(i)) ++passed;
    }
    for (;;) {
        std::size_t fastest = batch.scored.size();
        for (std::size_t i = 0; i < batch.scored.size(); ++i)
            if (batch.scored[i].accepted &&
                (fastest == batch.scored.size() || batch.scored[i].speedup > batch.scored[fastest].speedup))
                fastest = i;
        if (fastest == batch.scored.size() || gate(fastest)) break;
    }
    return failed;
}

}  // namespace gi
