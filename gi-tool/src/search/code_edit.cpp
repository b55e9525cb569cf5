#include "search/code_edit.hpp"

#include <map>
#include <memory>

#include "genome/random_edit.hpp"
#include "variant/apply.hpp"

namespace gi {

EditDrawer grammar_edit_drawer(const Grammar& grammar) {
    // Building an EditSpace is quadratic in the rules, and a run meets only a few macro
    // configurations, so spaces are kept per configuration. Caching never changes a draw.
    auto spaces = std::make_shared<std::map<MacroTable, std::shared_ptr<const EditSpace>>>();
    return [&grammar, spaces](const Genome& genome, Rng& rng) -> std::optional<Edit> {
        MacroTable macros = macros_for(genome, grammar);
        auto it = spaces->find(macros);
        if (it == spaces->end()) {
            auto space = std::make_shared<const EditSpace>(grammar, macros);
            it = spaces->emplace(std::move(macros), std::move(space)).first;
        }
        return it->second->draw(rng, EditWeighting::OpsEqual);
    };
}

std::size_t live_rule_count(const Grammar& grammar, const Genome& genome) {
    const MacroTable macros = macros_for(genome, grammar);
    std::size_t live = 0;
    for (const Rule& rule : grammar.rules)
        if (rule_is_live(rule, grammar, macros)) ++live;
    return live;
}

}  // namespace gi
