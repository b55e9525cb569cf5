#include "fitness/scored.hpp"

#include <map>
#include <optional>

#include "util/error.hpp"

namespace gi {

ScoredBatch evaluate_genomes(Evaluator& evaluator, const Grammar& grammar, const std::vector<Genome>& genomes,
                             int case_index, const AcceptanceRule& rule) {
    ScoredBatch batch;
    batch.case_index = case_index;
    std::vector<Variant> to_send;
    std::map<std::string, std::size_t> slot_of_key;            // key -> index into to_send
    std::vector<std::optional<std::size_t>> slot(genomes.size());  // genome -> index into to_send
    std::vector<std::string> apply_failure(genomes.size());
    std::vector<bool> repeat(genomes.size(), false);
    for (std::size_t i = 0; i < genomes.size(); ++i) {
        try {
            Variant variant = make_variant(genomes[i], grammar);
            auto [it, fresh] = slot_of_key.emplace(variant.key, to_send.size());
            if (fresh) to_send.push_back(std::move(variant));
            repeat[i] = !fresh;
            slot[i] = it->second;
        } catch (const Error& e) {
            apply_failure[i] = std::string("the genome does not apply: ") + e.what();
        }
    }
    BatchResult results = evaluator.evaluate(to_send, case_index);
    if (results.results.size() != to_send.size())
        throw Error("evaluator '" + evaluator.name() + "' returned " + std::to_string(results.results.size()) +
                    " results for " + std::to_string(to_send.size()) + " variants");
    batch.original = results.original;
    batch.distinct = static_cast<int>(to_send.size());
    for (std::size_t i = 0; i < genomes.size(); ++i) {
        Scored scored;
        scored.genome = genomes[i];
        if (slot[i]) {
            scored.result = results.results[*slot[i]];
        } else {
            scored.result.status = EvalStatus::CompileError;
            scored.result.detail = apply_failure[i];
        }
        scored.repeat = repeat[i];
        const Timing& original = original_for(scored.result, batch.original);
        scored.accepted = is_accepted(scored.result, original, rule);
        scored.speedup = scored.result.status == EvalStatus::Ok ? speedup(original, scored.result.time) : 0;
        batch.scored.push_back(std::move(scored));
    }
    return batch;
}

}  // namespace gi
