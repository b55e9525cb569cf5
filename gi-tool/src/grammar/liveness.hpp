#pragma once
// Which rules a configuration keeps: a rule inside a #if region that the macro values remove is
// dead, and an edit to it or from it changes nothing the compiler sees. Genome edits (genome/) and
// the search's code-edit counts use it; it needs only the grammar and the preprocessor's arithmetic.
#include "grammar/grammar.hpp"
#include "grammar/preprocessor.hpp"

namespace gi {

// False when the rule sits in a #if region its genome's configuration removes.
bool rule_is_live(const Rule& rule, const Grammar& grammar, const MacroTable& macros);

}  // namespace gi
