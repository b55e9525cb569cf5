#pragma once
// The grammar as readable BNF in the seeds' style, for people to inspect (`gi-tool grammar`).
#include <string>

#include "grammar/grammar.hpp"

namespace gi {

std::string grammar_to_bnf(const Grammar& grammar);

}  // namespace gi
