#include "history/history_evaluator.hpp"

#include <map>

#include "util/error.hpp"

namespace gi {

BatchResult HistoryEvaluator::evaluate(const std::vector<Variant>& variants, int case_index) {
    BatchResult out;
    out.results.resize(variants.size());
    std::vector<Variant> misses;
    std::vector<std::size_t> miss_slot;               // variants index of each miss
    std::map<std::string, std::size_t> first_miss;    // key -> index into misses
    std::vector<std::pair<std::size_t, std::size_t>> repeats;  // (variant, miss) for keys repeated in the batch
    for (std::size_t i = 0; i < variants.size(); ++i) {
        if (auto row = history_.cached(variants[i].key, case_index)) {
            out.results[i] = row->result;
            ++hits_;
            continue;
        }
        auto [it, fresh] = first_miss.emplace(variants[i].key, misses.size());
        if (!fresh) {
            repeats.emplace_back(i, it->second);
            continue;
        }
        misses.push_back(variants[i]);
        miss_slot.push_back(i);
    }
    if (!misses.empty() || variants.empty()) {
        BatchResult fresh = inner_.evaluate(misses, case_index);
        if (fresh.results.size() != misses.size())
            throw Error("evaluator '" + inner_.name() + "' returned " + std::to_string(fresh.results.size()) +
                        " results for " + std::to_string(misses.size()) + " variants");
        out.original = fresh.original;
        const double wall = history_.wall_seconds();
        for (std::size_t m = 0; m < misses.size(); ++m) {
            out.results[miss_slot[m]] = fresh.results[m];
            EvaluationRow row;
            row.variant_key = misses[m].key;
            row.case_index = case_index;
            row.genome = genome_to_text(misses[m].genome);
            row.result = fresh.results[m];
            row.original = original_for(fresh.results[m], fresh.original);
            row.wall_s = wall;
            history_.add_evaluation(row);
        }
        misses_ += static_cast<long long>(misses.size());
        for (const auto& [variant, miss] : repeats) out.results[variant] = fresh.results[miss];
    } else {
        // Every program was measured before: the original's latest timing on the case stands in.
        out.original = history_.original_on(case_index).value_or(Timing{});
    }
    return out;
}

}  // namespace gi
