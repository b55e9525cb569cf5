#include "grammar/liveness.hpp"

namespace gi {

bool rule_is_live(const Rule& rule, const Grammar& grammar, const MacroTable& macros) {
    for (const int index : rule.conditions) {
        const auto value = evaluate_condition(grammar.conditions.at(static_cast<std::size_t>(index)).expression, macros);
        if (value && *value == 0) return false;
    }
    return true;
}

}  // namespace gi
